import { ERRORS } from '@cc/contracts';
import type { ErrorDef, ErrorName, MessageParams } from '@cc/contracts';

/** A failure the client should see: envelope code, HTTP status, message key and an optional result. */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly def: ErrorDef,
    /**
     * Goes to the envelope's `result` (the websocket's `error_detail` when it is a string): a detail key from
     * `ERROR_DETAILS`, or machine-readable data. Never internals, never English the user is meant to read.
     */
    readonly result: unknown = null,
    /** Overrides the catalogue message key (used for upstream status keys). */
    readonly messageKey: string = def.message,
    /** Overrides the HTTP status (used for upstream failures). */
    readonly status: number = def.status,
    /** Interpolation values for the message key, and for `result` when it is a key. */
    readonly params?: MessageParams,
  ) {
    super(typeof result === 'string' ? `${messageKey}: ${result}` : messageKey);
  }
}

/** A named factory: `(result?, params?) => AppError`. */
export type AppErrorFactory = (result?: unknown, params?: MessageParams) => AppError;

/**
 * Named factories, one per catalogue entry: `fail.notFound(ERROR_DETAILS.fileNotFound)`,
 * `fail.rateLimited(null, { seconds: 60, max: 5 })`.
 */
export const fail = Object.fromEntries(
  Object.entries(ERRORS).map(([name, def]) => [
    name,
    (result?: unknown, params?: MessageParams) =>
      new AppError(def, result ?? null, def.message, def.status, params),
  ]),
) as { [K in ErrorName]: AppErrorFactory };

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
