import { describe, expect, it } from 'vitest';
import { DownloadGuard } from '../../src/background/floor/downloads';
import { reportWithoutCompile } from '../../src/compiler/report';
import type { Background } from '../../src/background';
import { FakeEffects, freshStore, monitorOn } from './fakes';
import { makePolicy } from '../support/policy';

const EXTENSION_ORIGIN = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop';

/** The downloads API as the guard uses it, recording what it was told. */
function fakeDownloads() {
  const calls: string[] = [];
  return {
    calls,
    api: {
      cancel: async (id: number) => void calls.push(`cancel ${id}`),
      pause: async (id: number) => void calls.push(`pause ${id}`),
      resume: async (id: number) => void calls.push(`resume ${id}`),
    },
  };
}

const item = (id: number, url: string, filename = '') => ({ id, url, filename }) as Parameters<DownloadGuard['decide']>[0];

async function monitorWith(policy: ReturnType<typeof makePolicy> | null): Promise<Background> {
  const { store } = await freshStore();
  const monitor = await monitorOn(store, new FakeEffects());
  if (policy !== null) await monitor.session.installTask(policy.taskId, 'the request', policy, reportWithoutCompile('test'));
  return monitor;
}

describe('DownloadGuard', () => {
  it('without a task, a download is allowed and resumed', async () => {
    const downloads = fakeDownloads();
    const guard = new DownloadGuard(downloads.api, monitorWith(null), EXTENSION_ORIGIN);
    await guard.created(item(1, 'http://app.test/file.bin'));
    expect(downloads.calls).toEqual(['pause 1', 'resume 1']);
  });

  it('a download the task does not allow is decided once (BLOCK), cancelled and never resumed', async () => {
    const downloads = fakeDownloads();
    const guard = new DownloadGuard(downloads.api, monitorWith(makePolicy({ domains: ['app.test'], ceilings: { LOCAL_WRITE: 'block' } })), EXTENSION_ORIGIN);
    const first = guard.decide(item(2, 'http://app.test/file.bin', 'file.bin'));
    expect(guard.decide(item(2, 'http://app.test/file.bin', 'file.bin'))).toBe(first);
    expect(await first).toBe('BLOCK');
    await guard.created(item(2, 'http://app.test/file.bin', 'file.bin'));
    expect(downloads.calls).toEqual(['cancel 2', 'pause 2']);
  });

  it("the popup's own audit export passes without a decision, even during a task", async () => {
    const downloads = fakeDownloads();
    const guard = new DownloadGuard(downloads.api, monitorWith(makePolicy({ domains: ['app.test'], ceilings: { LOCAL_WRITE: 'block' } })), EXTENSION_ORIGIN);
    const exportUrl = `blob:${EXTENSION_ORIGIN}/5f0c`;
    expect(await guard.decide(item(3, exportUrl))).toBe('ALLOW');
    await guard.created(item(3, exportUrl));
    expect(downloads.calls).toEqual([]);
  });

  it('fails closed: a monitor that cannot start blocks and cancels', async () => {
    const downloads = fakeDownloads();
    const broken = Promise.reject(new Error('store unreadable'));
    broken.catch(() => undefined);
    const guard = new DownloadGuard(downloads.api, broken, EXTENSION_ORIGIN);
    expect(await guard.decide(item(4, 'http://app.test/file.bin'))).toBe('BLOCK');
    expect(downloads.calls).toEqual(['cancel 4']);
  });
});
