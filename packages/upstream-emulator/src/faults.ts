import type { ServerResponse } from 'node:http';
import type { Fault } from './types';
import { isRecord, sendJson, sendRaw } from './util';

const WEB_DETAILS: Record<number, string> = {
  400: 'Bad request',
  401: 'Your authentication token has expired. Please try signing in again.',
  403: 'Forbidden',
  404: 'Not found',
  413: 'Message too long',
  429: 'Too many requests in 1 hour. Try again later.',
  500: 'Something went wrong. If this issue persists please contact us through our help center.',
  502: 'Bad gateway',
  503: 'The server is overloaded. Please try again later.',
};

const API_ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  400: { message: 'Bad request (emulated fault).', type: 'invalid_request_error', code: null },
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  403: {
    message: 'You are not allowed to sample from this model.',
    type: 'invalid_request_error',
    code: null,
  },
  404: { message: 'Not found (emulated fault).', type: 'invalid_request_error', code: null },
  429: {
    message: 'Rate limit reached for requests. Please try again later.',
    type: 'requests',
    code: 'rate_limit_exceeded',
  },
  500: {
    message: 'The server had an error while processing your request.',
    type: 'server_error',
    code: null,
  },
  503: {
    message: 'The engine is currently overloaded, please try again later.',
    type: 'server_error',
    code: null,
  },
};

/** Responds to an ask with the fault's status and body (a protocol-shaped JSON error by default). */
export function sendStatusFault(
  res: ServerResponse,
  fault: Fault & { status: number },
  protocol: 'web' | 'api',
): void {
  if (fault.body !== undefined) return sendRaw(res, fault.status, fault.body);
  if (protocol === 'web') {
    return sendJson(res, fault.status, {
      detail: WEB_DETAILS[fault.status] ?? `Emulated upstream error (status ${fault.status})`,
    });
  }
  const e = API_ERRORS[fault.status] ?? {
    message: `Emulated upstream error (status ${fault.status}).`,
    type: fault.status >= 500 ? 'server_error' : 'invalid_request_error',
    code: null,
  };
  sendJson(res, fault.status, { error: { message: e.message, type: e.type, param: null, code: e.code } });
}

/** The fault of one ask: the configured one overlaid by the prompt's `#fault:` tokens. */
export function mergeFaults(configured: Fault | null, fromPrompt: Fault | null): Fault | null {
  if (!configured && !fromPrompt) return null;
  return { ...configured, ...fromPrompt };
}

export function hasStatus(f: Fault | null): f is Fault & { status: number } {
  return typeof f?.status === 'number';
}

const FAULT_NUMBER_KEYS = [
  'status',
  'disconnectAfterChunks',
  'stallAfterChunks',
  'malformedLineAfterChunks',
] as const;

/** Validates a fault from the control endpoint; returns an error message or the fault. */
export function parseFault(value: unknown): Fault | null | string {
  if (value === null) return null;
  if (!isRecord(value)) return 'fault must be an object or null';
  const fault: Fault = {};
  for (const key of FAULT_NUMBER_KEYS) {
    const v = value[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
      return `${key} must be a non-negative integer`;
    fault[key] = v;
  }
  if (fault.status !== undefined && (fault.status < 100 || fault.status > 599))
    return 'status must be 100-599';
  for (const key of ['body', 'errorInStream'] as const) {
    const v = value[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') return `${key} must be a string`;
    fault[key] = v;
  }
  const once = value['once'];
  if (once !== undefined && once !== null) {
    if (typeof once !== 'boolean') return 'once must be a boolean';
    fault.once = once;
  }
  const known = new Set<string>([...FAULT_NUMBER_KEYS, 'body', 'errorInStream', 'once']);
  const unknown = Object.keys(value).filter((k) => !known.has(k));
  if (unknown.length > 0) return `unknown fault fields: ${unknown.join(', ')}`;
  return fault;
}
