import type { ValidationIssue } from '@cc/contracts';
import { ApiError, NetworkError } from './api-client';

type Translate = (key: string) => string;

function translateResult(result: unknown, t: Translate): string {
  if (result === null || result === undefined || result === '') return '';
  if (typeof result === 'string') return t(result);
  if (typeof result === 'number' || typeof result === 'boolean') return String(result);
  const detail = (result as { detail?: unknown }).detail;
  if (Array.isArray(detail)) {
    return (detail as ValidationIssue[])
      .map((issue) => {
        const field = (issue.loc ?? []).filter((p) => p !== 'body' && p !== 'query').join('.');
        return field ? `${field}: ${t(issue.msg)}` : t(issue.msg);
      })
      .join('; ');
  }
  if (typeof detail === 'string') return t(detail);
  try {
    return JSON.stringify(result).slice(0, 300);
  } catch {
    return '';
  }
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
    const message = translateResult(error.result, t);
    return { title: `${error.code} ${t(error.messageKey)}`, message, autoClose: 3000 };
  }
  if (error instanceof NetworkError) {
    return {
      title: t('errors.requestError'),
      message: error.status ? `HTTP ${error.status}` : '',
      autoClose: 5000,
    };
  }
  return {
    title: t('errors.requestError'),
    message: error instanceof Error ? error.message : '',
    autoClose: 5000,
  };
}
