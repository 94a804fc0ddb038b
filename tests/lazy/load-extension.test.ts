import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { importOnInstall, lazy } from '../../src/lazy/load-extension';
import { lazyGlobal } from '../../src/lazy/address';
import { LAZY_SCRIPTS } from '../../src/lazy/scripts';

/** The worker's importScripts and install event, played on globalThis (Node has neither). */
const scope = globalThis as unknown as Record<string, unknown>;
const ROOT = resolve(__dirname, '../..');

afterEach(() => {
  delete scope.importScripts;
  delete scope.addEventListener;
  for (const name of Object.keys(LAZY_SCRIPTS)) delete scope[lazyGlobal(name as keyof typeof LAZY_SCRIPTS)];
});

/** Each test loads its own module: the loader keeps what it took, for the worker's life (here: the file's). */
describe('a lazy script in the extension', () => {
  it('is evaluated on first use, taken off the global, and not evaluated again', async () => {
    const importScripts = vi.fn(() => {
      scope[lazyGlobal('compiler')] = { name: 'compiler' };
    });
    scope.importScripts = importScripts;
    expect(await lazy('compiler')).toEqual({ name: 'compiler' });
    expect(scope[lazyGlobal('compiler')]).toBeUndefined();
    expect(await lazy('compiler')).toEqual({ name: 'compiler' });
    expect(importScripts).toHaveBeenCalledTimes(1);
    expect(importScripts).toHaveBeenCalledWith('/compiler.js');
  });

  it('that does not load rejects with the reason (the caller then fails its own step)', async () => {
    scope.importScripts = () => {
      throw new Error('NetworkError: /control.js failed to load');
    };
    await expect(lazy('control')).rejects.toThrow('/control.js failed to load');
    scope.importScripts = () => {};
    await expect(lazy('control')).rejects.toThrow('the control script (/control.js) is not available');
  });

  it('the install step imports every script once, and a failing one fails neither the install nor the next', () => {
    const imported: string[] = [];
    scope.importScripts = (url: string) => {
      imported.push(url);
      if (url === '/model-modes.js') throw new Error('did not load');
    };
    const listeners: Array<() => void> = [];
    scope.addEventListener = (type: string, listener: () => void) => {
      if (type === 'install') listeners.push(listener);
    };
    importOnInstall(['model-modes', 'openai-sdk']);
    expect(listeners).toHaveLength(1);
    expect(() => listeners[0]!()).not.toThrow();
    expect(imported).toEqual(['/model-modes.js', '/openai-sdk.js']);
  });

  it('the install step leaves nothing of ours on the global; the loader keeps what it imported', async () => {
    scope.importScripts = (url: string) => {
      if (url === '/collector.js') scope[lazyGlobal('collector')] = { name: 'collector' };
    };
    const listeners: Array<() => void> = [];
    scope.addEventListener = (type: string, listener: () => void) => {
      if (type === 'install') listeners.push(listener);
    };
    importOnInstall(['collector']);
    listeners[0]!();
    expect(Object.getOwnPropertyNames(globalThis).filter((n) => n.startsWith('__agentsfence'))).toEqual([]);
    scope.importScripts = () => {
      throw new Error('imported again');
    };
    await expect(lazy('collector')).resolves.toEqual({ name: 'collector' });
  });
});

describe('the table of lazy scripts', () => {
  // The build serves entrypoints/<name>.ts as /<name>.js: a row without its entrypoint would load nothing.
  const entrypoints = readdirSync(join(ROOT, 'entrypoints')).filter((f) => f.endsWith('.ts'));
  const declared = entrypoints.flatMap((file) => {
    const call = /lazyScript\('([^']+)'/.exec(readFileSync(join(ROOT, 'entrypoints', file), 'utf8'));
    return call === null ? [] : [{ file, name: call[1]! }];
  });

  it('every row has the entrypoint of its name, and every lazy entrypoint is a row', () => {
    expect(declared.map((d) => d.file).sort()).toEqual(Object.keys(LAZY_SCRIPTS).map((name) => `${name}.ts`).sort());
    for (const { file, name } of declared) expect(file).toBe(`${name}.ts`);
  });
});
