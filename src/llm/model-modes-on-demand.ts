import type { Reviewer } from '../background/contracts';
import type { ModelAction, ModelResult } from '../minimizer/model';
import type { LlmOptions } from './client';
import { lazy } from '../lazy/load';

/**
 * The model modes as the worker calls them, loaded on first use (./model-modes.ts). A script that does
 * not load is that model call failing, as any endpoint failure is: the Minimizer's deterministic check
 * decides and the failure is audited (src/background/decide/decider.ts); the Sanitizer keeps its deterministic
 * result (src/background/decide/sanitizer.ts).
 */
export async function minimizerModelOnDemand(task: string, action: ModelAction, opts: LlmOptions): Promise<ModelResult> {
  let modes;
  try {
    modes = await lazy('model-modes');
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
  return modes.modelFindings(task, action, opts);
}

export const reviewerOnDemand: Reviewer = async (input) => (await lazy('model-modes')).modelReviewer(input);
