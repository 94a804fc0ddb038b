/**
 * The Sanitizer's mode as the background registered it: a one-line script that runs in the ISOLATED world
 * just before the frame guard (src/background/floor/registration.ts) sets it, so the first node parsed is
 * already sanitised. Waiting for the `sanitizer.config` answer instead left a window in which a page
 * that loaded before the answer (a cold worker, a loaded machine) was read untouched.
 */
export const SANITIZER_PRESET_KEY = '__agentsfence_sanitizer_mode_v1';

/** The modes a preset script can set (`off` registers none). */
export const PRESET_MODES = ['hidden', 'model'] as const;
export type PresetMode = (typeof PRESET_MODES)[number];

/** The built file that presets `mode`, relative to the extension root. */
export function presetFile(mode: PresetMode): string {
  return `sanitizer-${mode}.js`;
}

export function setPreset(mode: PresetMode): void {
  (globalThis as Record<string, unknown>)[SANITIZER_PRESET_KEY] = mode;
}

export function readPreset(): PresetMode | null {
  const value = (globalThis as Record<string, unknown>)[SANITIZER_PRESET_KEY];
  return PRESET_MODES.find((m) => m === value) ?? null;
}
