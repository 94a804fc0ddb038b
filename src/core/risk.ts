import { z } from './zod';

/** Risk classes, ordered from least to most consequential. UNKNOWN is never safe. */
export const RISK_CLASSES = [
  'READ',
  'LOCAL_WRITE',
  'EXTERNAL_WRITE',
  'COMMUNICATION',
  'DELETE',
  'PERMISSION_CHANGE',
  'FINANCIAL',
  'EXECUTION',
  'UNKNOWN',
] as const;

export const RiskClassSchema = z.enum(RISK_CLASSES);
export type RiskClass = z.infer<typeof RiskClassSchema>;

/** Every class but READ needs authority from the user's words or approvals. */
export const CONSEQUENTIAL_CLASSES = RISK_CLASSES.filter((c) => c !== 'READ') as Exclude<RiskClass, 'READ'>[];

export function isConsequential(c: RiskClass): boolean {
  return c !== 'READ';
}

/** The higher of two classes: a chain of commands is as risky as its riskiest part. */
export function maxClass(a: RiskClass, b: RiskClass): RiskClass {
  return RISK_CLASSES.indexOf(a) >= RISK_CLASSES.indexOf(b) ? a : b;
}

/** Classes whose effect leaves the browser or machine: they count against the outbound budget. */
export const OUTBOUND_CLASSES: readonly RiskClass[] = ['EXTERNAL_WRITE', 'COMMUNICATION', 'FINANCIAL', 'PERMISSION_CHANGE'];
