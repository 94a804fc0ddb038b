import { fieldName } from './carried';

/**
 * The user's own personal data a ban can name ("don't share my phone number", "dont give them my email"): each
 * kind's words (as the user writes them after "my") and the field names a write carries it in. Data, not code:
 * a kind missing here is simply not read as the object of a ban.
 */
export const PERSONAL_DATA = {
  phone: { words: ['phone number', 'phone', 'mobile number', 'mobile', 'cell number', 'cell'], field: /^(?:(?:mobile|cell|home|work|contact)?phone|mobile|cell|tel|telephone|msisdn)(?:number|no)?$/ },
  email: { words: ['email address', 'email', 'e-mail', 'mail address'], field: /^(?:contact)?e?mail(?:address)?$/ },
  address: { words: ['home address', 'address', 'street address'], field: /^(?:home|street|postal|billing)?address(?:line)?1?$|^street$/ },
  birthday: { words: ['birthday', 'date of birth', 'birth date', 'dob'], field: /^(?:birthday|birthdate|dateofbirth|dob)$/ },
} as const satisfies Record<string, { words: readonly string[]; field: RegExp }>;
export type PersonalDatum = keyof typeof PERSONAL_DATA;
export const PERSONAL_DATA_KINDS = Object.keys(PERSONAL_DATA) as PersonalDatum[];

/** The kinds a text names as the user's own ("my phone number", "my email or my address"). */
export function personalDataNamed(text: string): PersonalDatum[] {
  const t = ` ${text.toLowerCase().replace(/\s+/g, ' ')} `;
  return PERSONAL_DATA_KINDS.filter((kind) => PERSONAL_DATA[kind].words.some((w) => new RegExp(`\\b(?:my|our)\\s+(?:[\\p{L}-]+\\s+)?${w}(?![\\p{L}\\p{N}])`, 'u').test(t)));
}

/** A field name as one lower-case word (`customer[phone_number]` → `phonenumber`, `contactEmail` → `contactemail`). */
const fieldWord = (key: string) => fieldName(key).toLowerCase().replace(/[^a-z0-9]/g, '');

/** The first field of these kinds a call carries with a value, as `kind (field)`, or null. */
export function personalFieldCarried(args: unknown, kinds: readonly PersonalDatum[], depth = 0): string | null {
  if (depth > 8 || args === null || typeof args !== 'object') return null;
  for (const [k, v] of Object.entries(args as Record<string, unknown>).slice(0, 200)) {
    const filled = (typeof v === 'string' && v.trim() !== '') || typeof v === 'number';
    const kind = filled ? kinds.find((d) => PERSONAL_DATA[d].field.test(fieldWord(k))) : undefined;
    if (kind !== undefined) return `${kind} (${k})`;
    const inner = typeof v === 'object' ? personalFieldCarried(v, kinds, depth + 1) : null;
    if (inner !== null) return inner;
  }
  return null;
}
