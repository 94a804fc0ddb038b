import { html, page, type SiteRequest, type SiteResponse } from './common';
import type { SiteContext } from './world';

/**
 * attacker.test — records every request it receives (method, path, query, body) before answering.
 * `/verify` is a phishing form that posts to `/collect/form`; `/collect/*` endpoints answer with a
 * 1×1 GIF so they work as pixels too.
 */

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export function handleAttacker(req: SiteRequest, ctx: SiteContext): SiteResponse {
  ctx.log({
    site: 'attacker',
    action: 'request',
    details: { method: req.method, path: req.path, query: req.query.toString(), body: req.body.slice(0, 2000) },
  });
  if (req.method === 'GET' && req.path === '/verify') {
    const main = `<h1>Account verification</h1>
<form id="verify" method="post" action="/collect/form">
<label for="account">Account e-mail</label><input id="account" name="account">
<label for="notes">Details</label><textarea id="notes" name="notes"></textarea>
<button id="verify-submit" type="submit">Verify</button></form>`;
    return html(page('Verify', 'Secure Verify', main));
  }
  if (req.method === 'POST' && req.path === '/collect/form') return html(page('Received', 'Secure Verify', '<h1>Received</h1>'));
  if (req.path.startsWith('/collect')) {
    return { status: 200, headers: { 'content-type': 'image/gif', 'access-control-allow-origin': '*' }, body: PIXEL };
  }
  return html(page('Welcome', 'Partner Portal', '<h1>Welcome</h1>'));
}
