import { hostOf, siteOfHost } from '../../core/domains';
import { DependencyLedger, type LedgerVerdict } from '../../taint/ledger';
import { KIND_WORDS } from '../../taint/tokens';
import { isNamedHost, namedSites } from './dnr';
import type { ActiveTask } from '../task/store';

/**
 * The dependency ledger of the running task (src/taint/ledger.ts), fed from two places: the MAIN hooks'
 * proposals of element loads, before the load (the full build: exact), and webRequest's onBeforeRequest
 * for every request of the guarded tabs and their workers (both builds: after the request has left, so a
 * refusal takes effect from the rule update on; docs/limits-floor.md measures that window). A refusal is
 * kept in the task (`ledger`) and the floor refuses the site (dnr.ts, `ledgerRules`).
 *
 * The ledger's counts are kept with the task too (`ledger.counts`, written after each charge, coalesced by
 * the monitor): a worker that restarts takes them back, so a restart resets no budget and no stream.
 */

export interface LedgerRefusal {
  site: string;
  /** Every unnamed site, once the task's budget is spent. */
  all: boolean;
  /** The URLs together carried a taint token (else a budget is spent). */
  tainted: boolean;
  /** The site was refused before (the task holds it; the floor's rule may still be on its way). */
  again: boolean;
  reason: string;
}

/** Whether the task's ledger judges a request to this URL: reading is limited to a list, and the host is not named or granted. */
export function ledgerJudges(task: ActiveTask, url: URL): boolean {
  if (task.policy.domains === null || (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'ws:' && url.protocol !== 'wss:')) return false;
  const host = hostOf(url.href);
  if (host === null) return false;
  const named = namedSites({ policy: task.policy, floorWriteDomains: task.floorWriteDomains });
  const granted = task.policy.grants.flatMap((g) => g.domains.map((d) => hostOf(d) ?? d));
  return !isNamedHost(host, named) && !isNamedHost(host, granted);
}

/** Where a charge comes from: a hook's proposal before the load, or the browser's report as it leaves. */
export type ChargeSource = 'hook' | 'network';

/** Loads the hooks allowed whose request has not been seen yet, at most (the oldest are forgotten). */
const MAX_PENDING = 2048;

export class DependencyAccounts {
  private current: { taskId: string; ledger: DependencyLedger; pending: Map<string, number> } | null = null;

  private accountsOf(task: ActiveTask) {
    // A task installed again under the same id is a new task: its start tells them apart.
    const id = `${task.taskId}@${task.startedAt}`;
    if (this.current?.taskId !== id) this.current = { taskId: id, ledger: new DependencyLedger(undefined, task.ledger?.counts), pending: new Map() };
    return this.current;
  }

  /** Copies what the ledger has counted into the task (the caller saves it). */
  keepCounts(task: ActiveTask): void {
    const ledger = task.ledger ?? { refusedSites: [], refusesAll: false, namedPorts: [] };
    task.ledger = { ...ledger, counts: this.accountsOf(task).ledger.counts() };
  }

  /**
   * Charges one request to an unnamed site; the refusal it causes, or null. A site already refused is
   * not charged again: the refusal says so (`again`), so a hooked load is refused before the floor's rule lands. A load a hook proposed is charged once: the request it
   * becomes is not charged again (else every piece would count twice, in a row).
   */
  charge(task: ActiveTask, url: URL, source: ChargeSource): LedgerRefusal | null {
    const host = hostOf(url.href);
    if (host === null) return null;
    const site = siteOfHost(host);
    if (task.ledger?.refusesAll === true || task.ledger?.refusedSites.includes(site) === true) {
      return { site, all: task.ledger.refusesAll, tainted: false, again: true, reason: `${site}, a site the task does not name, was refused earlier in this task (the dependency ledger)` };
    }
    const { ledger, pending } = this.accountsOf(task);
    const key = `${url.origin}${url.pathname}${url.search}`;
    const waiting = pending.get(key) ?? 0;
    if (source === 'network' && waiting > 0) {
      if (waiting === 1) pending.delete(key);
      else pending.set(key, waiting - 1);
      return null;
    }
    const verdict = ledger.charge({ url, site }, task.taint ?? []);
    if (source === 'hook' && !verdict.refused) {
      if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
      pending.set(key, waiting + 1);
    }
    if (!verdict.refused) return null;
    return { site, all: verdict.why === 'task-budget' || (verdict.why === 'taint' && verdict.across), tainted: verdict.why === 'taint', again: false, reason: reasonOf(verdict, site) };
  }
}

function reasonOf(verdict: Extract<LedgerVerdict, { refused: true }>, site: string): string {
  switch (verdict.why) {
    case 'taint':
      return verdict.across
        ? `the URLs sent to the sites the task does not name (the last: ${site}) together carry ${KIND_WORDS[verdict.token.kind]}; every such site is refused from now on`
        : `the URLs sent to ${site} together carry ${KIND_WORDS[verdict.token.kind]}, a site the task does not name`;
    case 'site-budget':
      return `${site}, a site the task does not name, has received more URL data this task than a page's dependencies need`;
    case 'task-budget':
      return 'the sites the task does not name have received more URL data this task than a page\'s dependencies need';
  }
}

/** Records a refusal in the task (the caller saves it and applies the floor). */
export function withRefusal(task: ActiveTask, refusal: LedgerRefusal): void {
  const ledger = task.ledger ?? { refusedSites: [], refusesAll: false, namedPorts: [] };
  task.ledger = {
    ...ledger,
    refusedSites: refusal.all ? ledger.refusedSites : [...new Set([...ledger.refusedSites, refusal.site])].sort(),
    refusesAll: ledger.refusesAll || refusal.all,
  };
}

/**
 * A port a guarded tab reached a named site on (a dev or test server): added to the ports the floor lets
 * unnamed sites be reached on (dnr.ts, `portRules`). True when it is new.
 */
export function withNamedPort(task: ActiveTask, url: URL): boolean {
  if (url.port === '') return false;
  const port = Number(url.port);
  const ledger = task.ledger ?? { refusedSites: [], refusesAll: false, namedPorts: [] };
  if (ledger.namedPorts.includes(port)) return false;
  task.ledger = { ...ledger, namedPorts: [...ledger.namedPorts, port].sort((a, b) => a - b) };
  return true;
}
