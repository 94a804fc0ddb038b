/**
 * The kinds of private detail the Minimizer looks for in what the user pasted (a chat, an e-mail, notes)
 * and not in what the user asked: the special categories of personal data (GDPR art. 9 and 10) and the
 * details that identify a person. A leaf module: the compile report (src/compiler/report.ts) stores the
 * details by these kinds, and the Minimizer (./detect.ts) names them.
 */
export const PASTED_KINDS = [
  'health',
  'religion',
  'politics',
  'sexuality',
  'union_membership',
  'ethnicity',
  'criminal_record',
  'home_address',
  'birth_date',
  'national_id',
  'account_number',
  'third_party_name',
  'pasted_contact',
] as const;
export type PastedKind = (typeof PASTED_KINDS)[number];
