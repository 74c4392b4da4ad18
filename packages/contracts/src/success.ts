// Kept apart from the envelope's schemas (envelope.ts): the web client's first page needs these, not zod.

/** Envelope codes that mean success. */
export const SUCCESS_CODES = [200, 201, 204] as const;

export function isSuccessCode(code: number): boolean {
  return (SUCCESS_CODES as readonly number[]).includes(code);
}
