import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { benchExtension } from './chromium';
import type { Figure } from './stats';

/**
 * What the browser loads: the worker's script on every cold start, the two content scripts in every
 * frame of a guarded tab during a task. Sizes of the build the other sections measure.
 */
const FILES = ['background.js', 'frame-guard.js', 'page-hooks.js'];
const BACKGROUND_TARGET_KB = 250;

export function bundleFigures(): Figure[] {
  const extension = benchExtension();
  try {
    const sizes = FILES.map((file) => {
      const path = join(extension.path, file);
      const bytes = statSync(path).size;
      return { file, kb: bytes / 1000, gzipKb: gzipSync(readFileSync(path)).length / 1000 };
    });
    const kb = (x: number) => `${x.toFixed(1)} KB`;
    const background = sizes[0]!;
    return [
      {
        id: 'bundle',
        figure: 'Bundle sizes (the worker script; the content scripts each guarded frame loads)',
        target: `background.js ≤ ${BACKGROUND_TARGET_KB} KB`,
        measured: sizes.map((s) => `${s.file} ${kb(s.kb)} (gzip ${kb(s.gzipKb)})`).join('; '),
        ratio: `${(background.kb / BACKGROUND_TARGET_KB).toFixed(2)}× the target`,
        verdict: background.kb <= BACKGROUND_TARGET_KB ? 'met' : 'missed',
        method: 'File sizes in the production build (`wxt build`), 1 KB = 1000 bytes; gzip with Node zlib defaults, for comparison only (the browser reads the files uncompressed).',
        data: { sizes },
      },
    ];
  } finally {
    extension.dispose();
  }
}
