import type { Browser } from '@wxt-dev/browser';
import { downloadCall } from './guards';
import type { Decider } from '../decide/decider';
import type { TaskSession } from '../task/session';
import type { Verdict } from '../contracts';

type Downloads = typeof Browser.downloads;
type DownloadItem = Browser.downloads.DownloadItem;
type DownloadVerdict = Verdict['decision'];
/** What a download's decision reads: whether a task runs, and the decider. */
type Deciding = { ready: Promise<void>; session: Pick<TaskSession, 'task'>; decider: Pick<Decider, 'decide'> };

/**
 * Downloads, decided as `browser.download`: held in onDeterminingFilename where the browser offers it,
 * and paused in onCreated (downloads a debugger manages, e.g. Playwright's, skip onDeterminingFilename).
 * One decision per download, whichever event comes first; cancelled unless allowed. Errors fail closed.
 */
export class DownloadGuard {
  private readonly decisions = new Map<number, Promise<DownloadVerdict>>();

  constructor(
    private readonly downloads: Pick<Downloads, 'cancel' | 'pause' | 'resume'>,
    private readonly background: Promise<Deciding>,
    /** `chrome-extension://<id>` or `moz-extension://<uuid>`: the popup's audit export is a blob only this extension's own pages can mint, never a page's download. */
    private readonly extensionOrigin: string,
  ) {}

  isOwnExport(url: string): boolean {
    return url.startsWith(`blob:${this.extensionOrigin}/`);
  }

  /** The decision for this download (made once), cancelling it unless allowed. */
  decide(item: DownloadItem): Promise<DownloadVerdict> {
    let decision = this.decisions.get(item.id);
    if (decision === undefined) {
      decision = this.background
        .then(async (b) => {
          await b.ready;
          if (b.session.task === null || this.isOwnExport(item.url)) return 'ALLOW' as const;
          return (await b.decider.decide(downloadCall(item), { layer: 'guard', tabId: null, origin: null })).decision;
        })
        .catch(() => 'BLOCK' as const)
        .then(async (verdict) => {
          if (verdict !== 'ALLOW') await this.downloads.cancel(item.id).catch(() => undefined);
          setTimeout(() => this.decisions.delete(item.id), 60_000);
          return verdict;
        });
      this.decisions.set(item.id, decision);
    }
    return decision;
  }

  /** onCreated: pause before anything else (a small download can finish while the worker wakes), resume if allowed. */
  async created(item: DownloadItem): Promise<void> {
    if (this.isOwnExport(item.url)) return;
    await this.downloads.pause(item.id).catch(() => undefined);
    const b = await this.background;
    await b.ready;
    if (b.session.task === null || (await this.decide(item)) === 'ALLOW') await this.downloads.resume(item.id).catch(() => undefined);
  }
}

/** Registers the download listeners (synchronously, in the worker's first turn). */
export function guardDownloads(downloads: Downloads, background: Promise<Deciding>, extensionOrigin: string): DownloadGuard {
  const guard = new DownloadGuard(downloads, background, extensionOrigin);
  // Firefox has no onDeterminingFilename: there the pause in onCreated is the only hold (docs/firefox.md).
  downloads.onDeterminingFilename?.addListener((item, suggest) => {
    void guard.decide(item).then(() => suggest());
    return true;
  });
  downloads.onCreated.addListener((item) => {
    guard.created(item).catch((err: unknown) => console.error('AgentsFence:', err));
  });
  return guard;
}
