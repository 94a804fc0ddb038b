// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { installTaintCollector } from '../../src/content/taint';
import type { TaintReport } from '../../src/messages/protocol';

/*
 * The taint collector's shown-text lane under happy-dom: what a page showed before it was left is
 * reported once, whether it is still in the document at the flush or was removed before it.
 */

function collect(): TaintReport['tokens'] {
  const reported: TaintReport['tokens'] = [];
  installTaintCollector(window, async (report) => {
    reported.push(...report.tokens);
    return { ok: true, kept: report.tokens.length };
  });
  return reported;
}

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
