import { ERRORS } from '@cc/contracts';
import type { ErrorDef, ErrorName } from '@cc/contracts';

/** A failure the client should see: envelope code, HTTP status, message key and an optional result. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly def: ErrorDef,
    /** Goes to the envelope's `result`: a detail key, text or object. Never internals. */
    readonly result: unknown = null,
    /** Overrides the catalogue message key (used for upstream status keys). */
    readonly messageKey: string = def.message,
    /** Overrides the HTTP status (used for upstream failures). */
    readonly status: number = def.status,
  ) {
    super(typeof result === 'string' ? `${messageKey}: ${result}` : messageKey);
  }
}

/** Named factories, one per catalogue entry: `fail.notFound('errors.conversationNotFound')`. */
export const fail = Object.fromEntries(
  Object.entries(ERRORS).map(([name, def]) => [
    name,
    (result?: unknown) => new AppError(def, result ?? null),
  ]),
) as { [K in ErrorName]: (result?: unknown) => AppError };

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
