import { registrableDomain } from './domains';

/**
 * Sites people name by their product's name, without an address ("on gitlab", "my linkedin", "gmail"): the
 * registrable domains each name stands for. Data, not code: a name missing here is simply not read as a site.
 * A task that names one this way gets one site-binding ask on the real host (never a block, never an allow
 * without the ask); a host that only looks like the name (`discord-verify.test`) is not it.
 */
export const PRODUCT_SITES: Readonly<Record<string, readonly string[]>> = {
  gitlab: ['gitlab.com'],
  github: ['github.com'],
  linkedin: ['linkedin.com'],
  gmail: ['google.com', 'gmail.com'],
  outlook: ['live.com', 'office.com', 'outlook.com', 'office365.com'],
  slack: ['slack.com'],
  discord: ['discord.com', 'discord.gg'],
  venmo: ['venmo.com'],
  paypal: ['paypal.com'],
  'cash app': ['cash.app'],
  cashapp: ['cash.app'],
  facebook: ['facebook.com'],
  instagram: ['instagram.com'],
  twitter: ['x.com', 'twitter.com'],
  reddit: ['reddit.com'],
  zillow: ['zillow.com'],
  splitwise: ['splitwise.com'],
  airbnb: ['airbnb.com'],
  dropbox: ['dropbox.com'],
  notion: ['notion.so'],
  trello: ['trello.com'],
  jira: ['atlassian.net'],
  whatsapp: ['whatsapp.com'],
  telegram: ['telegram.org'],
  spotify: ['spotify.com'],
  netflix: ['netflix.com'],
  amazon: ['amazon.com'],
  ebay: ['ebay.com'],
  etsy: ['etsy.com'],
  youtube: ['youtube.com'],
};

/** The product names a text names as words of their own (not inside an address: `slack.test` names no product). */
export function productsNamed(text: string): string[] {
  const masked = text.toLowerCase().replace(/[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu, ' ');
  return Object.keys(PRODUCT_SITES).filter((name) => new RegExp(`(?<![\\p{L}\\p{N}@$#_.-])${name.replace(/ /g, '\\s+')}(?![\\p{L}\\p{N}_-])`, 'u').test(masked));
}

/**
 * A product site's loopback twin: `linkedin.com` is `linkedin.test` where the product runs under a reserved `.test`
 * name (RFC 6761: it never resolves on the internet, so only a local copy — a test, a staging mirror — holds it).
 */
const loopbackTwin = (site: string) => site.replace(/\.[a-z]+$/, '.test');

/**
 * The named product whose site a host is, or null: by registrable domain, exactly — one the table lists or its
 * `.test` twin (`mail.google.test` for gmail), or one whose name is the product's name under any suffix ("on
 * gitlab" names `gitlab.com` and `gitlab.test`, the site named without its TLD). A host that only contains the
 * name (`gitlab-verify.test`, `my-gitlab.com`) is none.
 */
export function productOfHost(host: string, named: readonly string[]): string | null {
  const site = registrableDomain(host);
  if (site === null) return null;
  const label = site.slice(0, site.indexOf('.'));
  return named.find((name) => (PRODUCT_SITES[name] ?? []).some((d) => d === site || loopbackTwin(d) === site) || label === name.replace(/ /g, '')) ?? null;
}
