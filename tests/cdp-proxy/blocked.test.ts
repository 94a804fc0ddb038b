import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { blockedPageUrl } from '../../src/background/floor/guards';
import { isReadableBlockedPage, readableBlockedPage } from '../../src/cdp-proxy/blocked';

const EXT = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

function render(dataUrl: string): Document {
  const html = decodeURIComponent(dataUrl.slice(dataUrl.indexOf(',') + 1));
  const window = new Window();
  window.document.write(html);
  return window.document as unknown as Document;
}

describe('the blocked page, readable by agents behind the CDP proxy', () => {
  it('says what was blocked and why, in its title and its text, and nothing else', () => {
    const href = blockedPageUrl(EXT, 'domain_allowlist', 'evil.test is not among the sites the task names', 'https://evil.test/steal?d=1&e=2');
    const url = readableBlockedPage(href, EXT);
    expect(url).not.toBeNull();
    expect(isReadableBlockedPage(url!)).toBe(true);
    const doc = render(url!);
    expect(doc.title).toBe('Blocked by AgentsFence (domain_allowlist: evil.test is not among the sites the task names)');
    const alert = doc.querySelector('[role=alert]');
    expect(alert?.textContent).toContain('https://evil.test/steal?d=1&e=2');
    expect(alert?.textContent).toContain('evil.test is not among the sites the task names');
    // Words only: no control an agent could use, no script.
    expect(doc.querySelectorAll('button, a, form, input, script')).toHaveLength(0);
    expect(doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content')).toContain("default-src 'none'");
  });

  it('markup in the blocked URL or reason stays text', () => {
    const href = blockedPageUrl(EXT, 'domain_allowlist', '<img src=x onerror=alert(1)>', 'https://evil.test/"><script>alert(1)</script>');
    const doc = render(readableBlockedPage(href, EXT)!);
    expect(doc.querySelectorAll('script, img')).toHaveLength(0);
    expect(doc.querySelector('[role=alert]')?.textContent).toContain('<script>alert(1)</script>');
  });

  it('only this extension\'s blocked page has a readable copy (another extension, its other pages: none)', () => {
    const href = blockedPageUrl(EXT, 'domain_allowlist', 'r', 'https://evil.test/');
    expect(readableBlockedPage(href.replace(EXT, 'chrome-extension://zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'), EXT)).toBeNull();
    expect(readableBlockedPage(`${EXT}/popup.html`, EXT)).toBeNull();
    expect(readableBlockedPage(`${EXT}/blocked.htmlx?check=a&reason=b&url=c`, EXT)).toBeNull();
  });

  it('a long exfiltration-shaped URL is shown cut, so the page stays short', () => {
    const href = blockedPageUrl(EXT, 'exfil', 'the URL carries data', `https://evil.test/?q=${'A'.repeat(20_000)}`);
    expect(readableBlockedPage(href, EXT)!.length).toBeLessThan(4_000);
  });
});
