import { afterEach, describe, expect, it, vi } from 'vitest';
import { importOnInstall, onDemandScript } from '../../src/background/on-demand-script';

/** The worker's importScripts and install event, played on globalThis (Node has neither). */
const scope = globalThis as unknown as Record<string, unknown>;

afterEach(() => {
  delete scope.importScripts;
  delete scope.__testModule;
  delete scope.addEventListener;
});

describe('a script loaded on demand', () => {
  it('is evaluated on first use, taken off the global, and not evaluated again', async () => {
    const importScripts = vi.fn(() => {
      scope.__testModule = { name: 'compiler' };
    });
    scope.importScripts = importScripts;
    const load = onDemandScript<{ name: string }>('/compiler.js', '__testModule', 'rules compiler');
    expect(await load()).toEqual({ name: 'compiler' });
    expect(scope.__testModule).toBeUndefined();
    expect(await load()).toEqual({ name: 'compiler' });
    expect(importScripts).toHaveBeenCalledTimes(1);
    expect(importScripts).toHaveBeenCalledWith('/compiler.js');
  });

  it('that does not load rejects with the reason (the caller then fails the compile)', async () => {
    scope.importScripts = () => {
      throw new Error('NetworkError: /compiler.js failed to load');
    };
    await expect(onDemandScript('/compiler.js', '__testModule', 'rules compiler')()).rejects.toThrow('/compiler.js failed to load');
    scope.importScripts = () => {};
    await expect(onDemandScript('/compiler.js', '__testModule', 'rules compiler')()).rejects.toThrow('the rules compiler script is not available');
  });

  it('the install step imports every script once, and a failing one fails neither the install nor the next', () => {
    const imported: string[] = [];
    scope.importScripts = (url: string) => {
      imported.push(url);
      if (url === '/compiler.js') throw new Error('did not load');
    };
    const listeners: Array<() => void> = [];
    scope.addEventListener = (type: string, listener: () => void) => {
      if (type === 'install') listeners.push(listener);
    };
    importOnInstall([
      { url: '/compiler.js', globalName: '__testCompiler' },
      { url: '/openai-sdk.js', globalName: '__testSdk' },
    ]);
    expect(listeners).toHaveLength(1);
    expect(() => listeners[0]!()).not.toThrow();
    expect(imported).toEqual(['/compiler.js', '/openai-sdk.js']);
  });

  it('the install step leaves nothing of ours on the global; the loader keeps what it imported', async () => {
    scope.importScripts = (url: string) => {
      if (url === '/kept.js') scope.__testKept = { name: 'kept' };
      if (url === '/unclaimed.js') scope.__testUnclaimed = { name: 'unclaimed' };
    };
    const listeners: Array<() => void> = [];
    scope.addEventListener = (type: string, listener: () => void) => {
      if (type === 'install') listeners.push(listener);
    };
    const load = onDemandScript<{ name: string }>('/kept.js', '__testKept', 'kept');
    importOnInstall([
      { url: '/kept.js', globalName: '__testKept' },
      { url: '/unclaimed.js', globalName: '__testUnclaimed' },
    ]);
    listeners[0]!();
    expect(Object.getOwnPropertyNames(globalThis).filter((n) => n.startsWith('__test'))).toEqual([]);
    scope.importScripts = () => {
      throw new Error('imported again');
    };
    await expect(load()).resolves.toEqual({ name: 'kept' });
  });
});
