/**
 * The Minimizer's and the Sanitizer's model modes: what the worker's own script (entrypoints/model-modes.ts)
 * carries, loaded on their first use (./model-modes-on-demand.ts). Each reaches the endpoint through
 * ./client.ts, which loads the openai SDK's script in turn.
 */
export { modelFindings } from '../minimizer/model';
export { modelReviewer } from '../sanitizer/model-review';
