import type { ValidationIssue } from '@cc/contracts';
import { ApiError } from '../../../lib/api-client';
import { issueTypeKey } from '../../../lib/errors';
import { adminKey } from './admin-i18n';

/** Field path → message (already translated). Paths join with dots: `openai_web.rate_limits.0.window_seconds`. */
export type FieldErrors = Record<string, string>;

type Translate = (key: string, values?: Record<string, unknown>) => string;
type Exists = (key: string) => boolean;

/**
 * A message that is an i18n key is translated; anything else (zod's English default text) gives the translated
 * generic message for the issue's code.
 */
export function translateMessage(
  message: string,
  t: Translate,
  exists: Exists,
  code?: string,
  params?: Record<string, unknown>,
): string {
  return exists(message) ? t(message, params) : t(issueTypeKey(code));
}

export interface PathIssue {
  path: readonly PropertyKey[];
  message: string;
  /** The zod issue code (server issues: their `type`), for a generic message when `message` is not a key. */
  code?: string;
  /** Interpolation values of `message` (a bound: `{min}`, `{max}`). */
  params?: Record<string, unknown>;
}

/** The parts of a zod issue that say what was wrong with a number. */
export interface ZodLikeIssue {
  path: readonly PropertyKey[];
  message: string;
  code: string;
  expected?: unknown;
  origin?: unknown;
  minimum?: unknown;
  maximum?: unknown;
}

/**
 * A zod issue as a field message. Number issues get the words of the admin number fields with their bound
 * ("Must be at least 1"), so a field and the form's summary say the same thing; others keep zod's message.
 */
export function fromZodIssue(issue: ZodLikeIssue): PathIssue {
  const base = { path: issue.path, code: issue.code };
  if (issue.code === 'too_small' && issue.origin === 'number')
    return { ...base, message: adminKey('schema.min'), params: { min: Number(issue.minimum) } };
  if (issue.code === 'too_big' && issue.origin === 'number')
    return { ...base, message: adminKey('schema.max'), params: { max: Number(issue.maximum) } };
  if (issue.code === 'invalid_type' && issue.expected === 'int')
    return { ...base, message: adminKey('schema.integer') };
  if (issue.code === 'invalid_type' && issue.expected === 'number')
    return { ...base, message: adminKey('schema.number') };
  return { ...base, message: issue.message };
}

/** Client-side (zod) issues → field errors; the first issue of a field wins. */
export function issuesToErrors(issues: readonly PathIssue[], t: Translate, exists: Exists): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.');
    out[key] ??= translateMessage(issue.message, t, exists, issue.code, issue.params);
  }
  return out;
}

/** Server 422 details → field errors; `loc` starts with body/query/params, which is dropped. */
export function serverIssuesToErrors(
  issues: readonly ValidationIssue[],
  t: Translate,
  exists: Exists,
): FieldErrors {
  return issuesToErrors(
    issues.map((issue) => ({
      path: (issue.loc ?? []).filter((p, i) => !(i === 0 && ['body', 'query', 'params'].includes(String(p)))),
      message: issue.msg,
      code: issue.type,
    })),
    t,
    exists,
  );
}

/** The 422 details of a failed mutation, or none. */
export function issuesOf(error: unknown): ValidationIssue[] {
  return error instanceof ApiError ? error.issues : [];
}
