import type { ValidationIssue } from '@cc/contracts';
import { ApiError } from '../../../lib/api-client';
import { issueTypeKey } from '../../../lib/errors';

/** Field path → message (already translated). Paths join with dots: `openai_web.rate_limits.0.window_seconds`. */
export type FieldErrors = Record<string, string>;

type Translate = (key: string) => string;
type Exists = (key: string) => boolean;

/**
 * A message that is an i18n key is translated; anything else (zod's English default text) gives the translated
 * generic message for the issue's code.
 */
export function translateMessage(message: string, t: Translate, exists: Exists, code?: string): string {
  return exists(message) ? t(message) : t(issueTypeKey(code));
}

export interface PathIssue {
  path: readonly PropertyKey[];
  message: string;
  /** The zod issue code (server issues: their `type`), for a generic message when `message` is not a key. */
  code?: string;
}

/** Client-side (zod) issues → field errors; the first issue of a field wins. */
export function issuesToErrors(issues: readonly PathIssue[], t: Translate, exists: Exists): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.');
    out[key] ??= translateMessage(issue.message, t, exists, issue.code);
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
