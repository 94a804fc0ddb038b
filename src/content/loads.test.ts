import { describe, expect, it } from 'vitest';
import { cssUrls, loadAttribute, srcsetUrls, urlsIn } from './loads';

describe('srcsetUrls', () => {
  it('reads every candidate URL and skips descriptors', () => {
    expect(srcsetUrls('a.png 1x, https://x.test/b.png 2x')).toEqual(['a.png', 'https://x.test/b.png']);
    expect(srcsetUrls('  https://x.test/a.png  480w,https://y.test/b.png 800w ')).toEqual(['https://x.test/a.png', 'https://y.test/b.png']);
  });
  it('keeps commas inside a URL and ends a candidate at a trailing comma', () => {
    expect(srcsetUrls('https://x.test/a,b.png 1x,https://y.test/c.png')).toEqual(['https://x.test/a,b.png', 'https://y.test/c.png']);
    expect(srcsetUrls('https://x.test/a.png,https://y.test/b.png')).toEqual(['https://x.test/a.png,https://y.test/b.png']);
  });
  it('is empty for an empty value', () => {
    expect(srcsetUrls(' , ')).toEqual([]);
  });
});

describe('cssUrls', () => {
  it('finds url() in every quoting, @import and image-set', () => {
    expect(cssUrls(`background: url(https://a.test/x) , url("https://b.test/y"), url('c.png')`)).toEqual(['https://a.test/x', 'https://b.test/y', 'c.png']);
    expect(cssUrls(`@import "https://d.test/s.css"; @import url(https://e.test/t.css);`)).toEqual(['https://e.test/t.css', 'https://d.test/s.css']);
    expect(cssUrls(`background-image: image-set("https://f.test/1.png" 1x, 'https://g.test/2.png' 2x)`)).toEqual(['https://f.test/1.png', 'https://g.test/2.png']);
  });
  it('sees through CSS escapes', () => {
    expect(cssUrls('background: \\75 rl(https://a.test/x)')).toEqual(['https://a.test/x']);
    expect(cssUrls('background: u\\rl(https://a.test/x)')).toEqual(['https://a.test/x']);
  });
  it('finds nothing in CSS without URLs', () => {
    expect(cssUrls('color: red; width: calc(100% - 2px)')).toEqual([]);
  });
});

describe('loadAttribute', () => {
  it('knows which attributes start a load', () => {
    expect(loadAttribute('IMG', 'SRC')).toEqual({ kind: 'image', syntax: 'url' });
    expect(loadAttribute('img', 'srcset')?.syntax).toBe('srcset');
    expect(loadAttribute('div', 'style')?.syntax).toBe('css');
    expect(loadAttribute('image', 'xlink:href')?.kind).toBe('image');
    expect(loadAttribute('a', 'href')).toBeUndefined();
    expect(loadAttribute('form', 'action')).toBeUndefined();
  });
  it('reads a plain URL value trimmed', () => {
    expect(urlsIn('url', '  https://a.test/x ')).toEqual(['https://a.test/x']);
    expect(urlsIn('url', '   ')).toEqual([]);
  });
});
