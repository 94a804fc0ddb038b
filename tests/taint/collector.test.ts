// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { installTaintCollector } from '../../src/content/taint';
import type { TaintReport } from '../../src/messages/protocol';

/*
 * The taint collector's shown-text lane under happy-dom: what a page showed before it was left is
 * reported once, whether it is still in the document at the flush or was removed before it.
 */

function collect(): TaintReport['tokens'] {
  return collector().reported;
}

function collector(): { reported: TaintReport['tokens']; values: () => string[]; flush: () => void } {
  const reported: TaintReport['tokens'] = [];
  const { flush } = installTaintCollector(window, async (report) => {
    reported.push(...report.tokens);
    return { ok: true, kept: report.tokens.length };
  });
  return { reported, values: () => reported.map((t) => t.value), flush };
}

/** A key-shaped value of its own per test (letters and digits, as a session key is). */
const key = (tag: string) => `${tag}K3y${'a1B2c3D4'.repeat(3)}`;

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('taint collector (shown text)', () => {
  it('reports text in the document, nested inserts and text removed before the first flush, each token once', async () => {
    document.body.innerHTML = '';
    const reported = collect();
    // As the parser does: an element, then each of its descendants, in separate insertions.
    const table = document.createElement('table');
    document.body.append(table);
    for (let i = 0; i < 5; i++) {
      const row = table.insertRow();
      row.insertCell().append(`Order ${i}: contact ops${i}@corp.test`);
    }
    const flash = document.createElement('p');
    flash.textContent = 'Your code is 493817';
    document.body.append(flash);
    await settle();
    flash.remove(); // shown, then gone before the flush
    window.dispatchEvent(new Event('pagehide'));
    const values = reported.map((t) => t.value);
    for (let i = 0; i < 5; i++) expect(values).toContain(`ops${i}@corp.test`);
    expect(values).toContain('493817');
    expect(new Set(values).size).toBe(values.length);
  });
});

describe('taint collector (data the page holds but does not show as text)', () => {
  it('reads data scripts, meta content, data-, title, alt and aria- attributes and pre-filled values', () => {
    document.head.innerHTML = `<meta name="csrf-token" content="${key('meta')}">`;
    document.body.innerHTML = [
      `<script type="application/json" id="state">{"user":{"apiKey":"${key('json')}"}}</script>`,
      `<script type="application/ld+json">{"identifier":"${key('ld')}"}</script>`,
      `<script type="text/x-template"><p>${key('tpl')}</p></script>`,
      `<div id="app" data-token="${key('data')}"></div>`,
      `<abbr title="${key('title')}">key</abbr><img alt="${key('alt')}"><button aria-label="copy ${key('aria')}">c</button>`,
      `<input type="hidden" value="${key('hidden')}">`,
      `<template><p>${key('template')}</p></template>`,
    ].join('');
    const c = collector();
    c.flush();
    for (const tag of ['meta', 'json', 'ld', 'tpl', 'data', 'title', 'alt', 'aria', 'hidden', 'template']) expect(c.values(), tag).toContain(key(tag));
  });

  it('leaves out code, URLs, class names and ids: a page\'s own asset hashes would refuse its CDN', () => {
    document.head.innerHTML = '';
    const hash = '4f9a2c1b8e7d6a5f3b2c1d0e9f8a7b6c';
    document.body.innerHTML = [
      `<script>var build = "${key('code')}";</script>`,
      `<script type="importmap">{"imports":{"app":"https://cdn.test/app.${hash}.js"}}</script>`,
      `<img src="https://cdn.test/a.${hash}.png" srcset="https://cdn.test/b.${hash}.png 2x" class="css-${key('class')}" id="${key('id')}">`,
      `<img class="lazy" data-src="https://cdn.test/photos/${hash}.jpg?w=400"><a href="/p/${hash}" data-path="/p/${hash}">x</a>`,
      `<svg><path d="M0.1234567 0.7654321 L 12345678 1"/></svg>`,
    ].join('');
    const c = collector();
    c.flush();
    expect(c.values()).toEqual([]);
  });

  it('reads cookies, localStorage and sessionStorage at the first flush and what changes later', () => {
    document.head.innerHTML = '';
    document.body.innerHTML = '';
    document.cookie = `sid=${key('cookie')}; path=/`;
    localStorage.setItem('token', key('local'));
    sessionStorage.setItem('s', JSON.stringify({ refresh: key('session') }));
    const c = collector();
    c.flush();
    for (const tag of ['cookie', 'local', 'session']) expect(c.values(), tag).toContain(key(tag));
    localStorage.setItem('token', key('rotated'));
    c.flush();
    expect(c.values()).toContain(key('rotated'));
    localStorage.clear();
    sessionStorage.clear();
  });

  it('reads open shadow roots, those attached after their host was read and what is inserted into them', async () => {
    document.head.innerHTML = '';
    document.body.innerHTML = '<div id="early"></div><x-later id="late"></x-later>';
    document.getElementById('early')!.attachShadow({ mode: 'open' }).innerHTML = `<p>API key: <code>${key('shadow')}</code></p>`;
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(0);
    const c = collector();
    c.flush();
    expect(c.values()).toContain(key('shadow'));
    // A custom element upgraded later: its root appears without any change to the light DOM (found by
    // the look through the document a flush makes at most once a second).
    const late = document.getElementById('late')!.attachShadow({ mode: 'open' });
    late.innerHTML = `<span>${key('late')}</span>`;
    vi.setSystemTime(1_000);
    c.flush();
    vi.useRealTimers();
    expect(c.values()).toContain(key('late'));
    late.append(Object.assign(document.createElement('b'), { textContent: key('inserted') }));
    await settle();
    c.flush();
    expect(c.values()).toContain(key('inserted'));
  });

  it('reads the strings CSS shows as generated content and attributes set later', async () => {
    document.head.innerHTML = `<style>#k::after { content: "API key: ${key('css')}" }</style>`;
    document.body.innerHTML = '<p id="k"></p>';
    const c = collector();
    c.flush();
    expect(c.values()).toContain(key('css'));
    document.getElementById('k')!.dataset.token = key('later');
    await settle();
    c.flush();
    expect(c.values()).toContain(key('later'));
  });

  it('reads a long text node to its end (within the flush budget), also a token across a window boundary', () => {
    document.head.innerHTML = '';
    const pre = document.createElement('pre');
    // 10,500 characters of log before the first key; the second spans character 19,872, where the second
    // 10,000-character window (overlapping the first by a token's length) ends.
    const head = `${'log line. '.repeat(1_050)}api_key=${key('long')} `;
    pre.textContent = `${head}${'. '.repeat((19_860 - head.length) / 2)}${key('edge')} end`;
    document.body.replaceChildren(pre);
    const c = collector();
    c.flush();
    expect(c.values()).toContain(key('long'));
    expect(c.values()).toContain(key('edge'));
  });
});

describe('taint collector (a large page read in slices)', () => {
  /** 800 paragraphs, each with a code of its own among prose, as a long report or feed shows them. */
  const page = () => {
    document.head.innerHTML = '';
    document.body.innerHTML = Array.from({ length: 800 }, (_, i) => `<p>Entry ${i}: the committee noted a change in <em>quarterly</em> figures; reference <span>${700000 + i}</span>.</p>`).join('');
  };
  const codes = () => Array.from({ length: 800 }, (_, i) => String(700000 + i));

  it('a flush after DOMContentLoaded (a proposal leaving) covers the whole page, what was removed meanwhile included', () => {
    page();
    const c = collector();
    document.dispatchEvent(new Event('DOMContentLoaded'));
    // The last paragraph's code leaves before the rest of the page was read (its paragraph still waiting): it was shown.
    document.body.lastElementChild!.querySelector('span')!.remove();
    c.flush();
    expect(c.values().filter((v) => /^7\d{5}$/.test(v)).sort()).toEqual(codes());
  });

  it('reads the rest of the page in idle time without a flush', async () => {
    page();
    const c = collector();
    document.dispatchEvent(new Event('DOMContentLoaded'));
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && !c.values().includes('700799'); ) await new Promise((r) => setTimeout(r, 50));
    expect(c.values().filter((v) => /^7\d{5}$/.test(v)).sort()).toEqual(codes());
  });
});
