import { z } from 'zod';

/** Envelope codes that mean success. */
export const SUCCESS_CODES = [200, 201, 204] as const;

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

export const ErrorEnvelope = envelope(z.unknown());
export type Envelope<T> = { code: number; message: string; result: T };

export function isSuccessCode(code: number): boolean {
  return (SUCCESS_CODES as readonly number[]).includes(code);
}
