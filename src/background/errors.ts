import type { ErrorResponse } from '../messages/protocol';

/** A refusal or failure as the protocol answers it (no schema here: the control desk carries this without the protocol's). */
export function error(code: ErrorResponse['code'], message: string): ErrorResponse {
  return { ok: false, code, error: message };
}
