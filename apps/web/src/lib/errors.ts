import type { MessageParams, ValidationIssue } from '@cc/contracts';
import { ApiError, NetworkError } from './api-client';

/** i18next's `t` as the error helpers use it: a key and its interpolation values. */
export type Translate = (key: string, params?: MessageParams) => string;

/** The shape of the keys the server sends (`errors.*`, `validation.*`, `tips.*`). */
const SERVER_KEY = /^(?:errors|validation|tips)\.[A-Za-z0-9_.]+$/;

export function isServerKey(value: unknown): boolean {
  return typeof value === 'string' && SERVER_KEY.test(value);
}

/** An i18next placeholder left in a text because its value was not sent. */
const UNRESOLVED = /\{\{[^}]*\}\}/;

/**
 * A server key translated with its params; '' for anything that is not a key, has no translation or lacks a
 * value its text needs, so raw keys, placeholders, server English and JSON never reach the screen.
 */
export function translateServerKey(value: unknown, t: Translate, params?: MessageParams): string {
  if (typeof value !== 'string' || !isServerKey(value)) return '';
  const text = t(value, params);
  return text && text !== value && !UNRESOLVED.test(text) ? text : '';
}

/** Messages that take params, and what to say when the params are missing (a server of another version). */
const WITHOUT_PARAMS: Record<string, string> = {
  'errors.rateLimited': 'errors.tooManyRequests',
};

/** An error's message key translated; an unknown key reads as "unknown error". */
export function translateServerMessage(key: string, t: Translate, params?: MessageParams): string {
  return translateServerKey(key, t, params) || t(WITHOUT_PARAMS[key] ?? 'errors.unknownError');
}

/** Zod's own issue codes → a translated generic message (zod's English texts are never shown). */
const ISSUE_TYPE_KEYS: Record<string, string> = {
  invalid_type: 'validation.issue.invalidType',
  too_small: 'validation.issue.tooSmall',
  too_big: 'validation.issue.tooBig',
  invalid_format: 'validation.issue.invalidFormat',
  invalid_string: 'validation.issue.invalidFormat',
  invalid_value: 'validation.issue.invalidValue',
  invalid_enum_value: 'validation.issue.invalidValue',
  invalid_literal: 'validation.issue.invalidValue',
  unrecognized_keys: 'validation.issue.unrecognizedKeys',
  not_multiple_of: 'validation.issue.notMultipleOf',
};

/** The generic message key for a zod issue code / validation issue type. */
export function issueTypeKey(type: string | undefined): string {
  return ISSUE_TYPE_KEYS[type ?? ''] ?? 'validation.issue.invalid';
}

/** One validation issue's message: the server's own key translated, else a generic message for its type. */
export function translateIssue(msg: string, type: string | undefined, t: Translate): string {
  return translateServerKey(msg, t) || t(issueTypeKey(type));
}

/**
 * The field an issue is about, in words (`validation.field.<name>`: the last name of its location, past the part of
 * the request — body, query string, path); '' when the UI has no words for it: a raw name is not shown.
 */
function fieldName(loc: readonly (string | number)[], t: Translate): string {
  const name = [...loc].reverse().find((part) => typeof part === 'string');
  if (name === undefined || !/^[a-z][a-z_]*$/.test(name)) return '';
  return translateServerKey(`validation.field.${name}`, t);
}

/**
 * An error's `result` in words: a detail key translated with the error's params, validation issues translated;
 * anything else (server text, ids, structured data) is not shown.
 */
export function translateResult(result: unknown, t: Translate, params?: MessageParams): string {
  if (result === null || result === undefined) return '';
  if (typeof result !== 'object') return translateServerKey(result, t, params);
  const detail = (result as { detail?: unknown }).detail;
  if (Array.isArray(detail)) {
    return (detail as ValidationIssue[])
      .map((issue) => {
        const field = fieldName(issue.loc ?? [], t);
        const message = translateIssue(String(issue.msg ?? ''), issue.type, t);
        return field ? t('common.labelled', { label: field, text: message }) : message;
      })
      .join(t('common.listSeparator'));
  }
  return translateServerKey(detail, t, params);
}

export interface ErrorToast {
  title: string;
  message: string;
  /** 3 s for an API error, 5 s for a network error (SPEC §8). */
  autoClose: number;
}

/** SPEC §8: code, translated message and translated result; a network error says "Request Error". */
export function describeRequestError(error: unknown, t: Translate): ErrorToast {
  if (error instanceof ApiError) {
    const message = translateResult(error.result, t, error.params);
    const title = translateServerMessage(error.messageKey, t, error.params);
    return { title: `${error.code} ${title}`, message, autoClose: 3000 };
  }
  if (error instanceof NetworkError) {
    return {
      title: t('errors.requestError'),
      message: error.status ? `HTTP ${error.status}` : '',
      autoClose: 5000,
    };
  }
  // A bug or a browser failure: its (English) text is for the console, not the toast.
  return { title: t('errors.requestError'), message: '', autoClose: 5000 };
}
