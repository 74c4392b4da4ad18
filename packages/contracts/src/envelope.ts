import { z } from 'zod';

/**
 * Values interpolated into a message key (i18next `{{name}}`): `{ seconds: 60, max: 5 }` for
 * `errors.rateLimited`. They apply to the message and to a detail that is itself a key. Plain values only.
 */
export const MessageParams = z.record(z.string(), z.union([z.string(), z.number()]));
export type MessageParams = z.infer<typeof MessageParams>;

/** Every JSON response: `{code, message, result}`. */
export function envelope<T extends z.ZodType>(result: T) {
  return z.object({ code: z.number().int(), message: z.string(), result });
}

export const ValidationIssue = z.object({
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  type: z.string(),
});
export type ValidationIssue = z.infer<typeof ValidationIssue>;

/**
 * A failure: `message` is the i18n key the user reads, `params` its interpolation values (only when it takes
 * some), `result` a detail key (translated with the same params), safe text, or machine-readable data.
 */
export const ErrorEnvelope = envelope(z.unknown()).extend({ params: MessageParams.optional() });
export type Envelope<T> = { code: number; message: string; result: T; params?: MessageParams };
