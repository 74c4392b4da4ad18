import { ERRORS, isSuccessCode } from '@cc/contracts';
import type { MessageParams, ValidationIssue } from '@cc/contracts';
import { AUTH_DIALOG_EXEMPT } from '../config/paths';

/** A response that carried the `{code, message, result}` envelope with a non-success code. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** Envelope code (10401, 10403, 404, 422, …). */
    readonly code: number,
    /** i18n key of the message. */
    readonly messageKey: string,
    /** The envelope's result: often an i18n key, a detail string or `{detail: ValidationIssue[]}`. */
    readonly result: unknown,
    /** HTTP status of the response. */
    readonly status: number,
    readonly url: string,
    /** Interpolation values for the message key (and for the result when it is a key). */
    readonly params?: MessageParams,
  ) {
    super(`${code} ${messageKey}`);
  }

  /** Validation issues of a 422 answer, if any. */
  get issues(): ValidationIssue[] {
    const detail = (this.result as { detail?: unknown } | null)?.detail;
    return Array.isArray(detail) ? (detail as ValidationIssue[]) : [];
  }
}

/** No envelope came back: the server is unreachable, or something in between answered. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(
    message: string,
    readonly url: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export type RequestError = ApiError | NetworkError;

export interface RequestOptions {
  /** JSON value, FormData or URLSearchParams. */
  body?: unknown;
  signal?: AbortSignal;
  /** No toast (the caller shows its own feedback). */
  silent?: boolean;
  /** Never open the login-expired dialog for a 10401 (login and logout never do). */
  noAuthDialog?: boolean;
}

export interface ErrorEvent {
  error: RequestError;
  /** Show a toast for it. */
  toast: boolean;
  /** Open the login-expired dialog (10401 outside login/logout). */
  authDialog: boolean;
}

type Listener = (event: ErrorEvent) => void;
const listeners = new Set<Listener>();

/** The app shell subscribes once to show toasts and the login-expired dialog. */
export function onRequestError(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function report(error: RequestError, url: string, options: RequestOptions): void {
  const path = url.split('?')[0] ?? url;
  const event: ErrorEvent = {
    error,
    toast: !options.silent,
    authDialog:
      error instanceof ApiError &&
      error.code === 10401 &&
      !options.noAuthDialog &&
      !AUTH_DIALOG_EXEMPT.includes(path),
  };
  for (const listener of listeners) listener(event);
}

/**
 * A lost session the server told another way than an HTTP answer (the chat socket closes 1008
 * `errors.unauthorized`): reported as the 10401 it stands for, so the login-expired dialog opens as for any request;
 * without a toast (the dialog says it).
 */
export function reportUnauthorized(url: string): ApiError {
  const { code, message, status } = ERRORS.unauthorized;
  const error = new ApiError(code, message, null, status, url);
  report(error, url, { silent: true });
  return error;
}

/** The envelope's `params`: plain string or number values only (anything else is dropped). */
function paramsOf(value: unknown): MessageParams | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, string | number] =>
      typeof entry[1] === 'string' || typeof entry[1] === 'number',
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

function isEnvelope(value: unknown): value is { code: number; message: string; result: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'number' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** A request that never got an answer: a reported NetworkError (shared with the upload transport). */
export function networkFailure(message: string, url: string, options: RequestOptions = {}): NetworkError {
  const error = new NetworkError(message || 'Request Error', url);
  report(error, url, options);
  return error;
}

/**
 * A response's HTTP status and body text → the envelope's result, or a reported ApiError / NetworkError (shared
 * with the upload transport, which uses XMLHttpRequest for progress).
 */
export function settleResponse<T>(
  status: number,
  text: string,
  url: string,
  options: RequestOptions = {},
): T {
  const ok = status >= 200 && status < 300;
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (isEnvelope(parsed)) {
    if (isSuccessCode(parsed.code) && ok) return parsed.result as T;
    const params = paramsOf((parsed as { params?: unknown }).params);
    const error = new ApiError(parsed.code, parsed.message, parsed.result, status, url, params);
    report(error, url, options);
    throw error;
  }
  if (ok && !text) return undefined as T;
  const error = new NetworkError(`HTTP ${status}`, url, status);
  report(error, url, options);
  throw error;
}

async function request<T>(method: string, url: string, options: RequestOptions = {}): Promise<T> {
  return (await exchange<T>(method, url, options)).result;
}

/** One request: the envelope's result and the response headers. */
async function exchange<T>(
  method: string,
  url: string,
  options: RequestOptions = {},
): Promise<{ result: T; headers: Headers }> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  let body: BodyInit | undefined;
  if (options.body instanceof FormData || options.body instanceof URLSearchParams) {
    body = options.body;
  } else if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body,
      signal: options.signal,
      credentials: 'same-origin',
    });
  } catch (e) {
    if (options.signal?.aborted) throw e;
    throw networkFailure(e instanceof Error ? e.message : 'Request Error', url, options);
  }
  const text = await response.text().catch(() => '');
  return { result: settleResponse<T>(response.status, text, url, options), headers: response.headers };
}

/** One page of a paged list and the number of items that match (the `x-total-count` header). */
export interface ListPage<T> {
  items: T[];
  total: number;
}

/** GET one page of a list the server pages (the total is in the `x-total-count` header). */
async function getPage<T>(url: string, options?: RequestOptions): Promise<ListPage<T>> {
  const { result, headers } = await exchange<T[]>('GET', url, options);
  const total = Number(headers.get('x-total-count'));
  return {
    items: result,
    total: Number.isFinite(total) && headers.has('x-total-count') ? total : result.length,
  };
}

/** The file name of a `content-disposition` header (RFC 5987 `filename*` first). */
export function dispositionFileName(header: string | null): string | null {
  if (!header) return null;
  const exact = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header);
  if (exact?.[1]) {
    try {
      return decodeURIComponent(exact[1].trim());
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(header);
  return plain?.[1]?.trim() || null;
}

/**
 * GET a file: its bytes and name; a failure (an envelope, or no answer) is the same reported ApiError /
 * NetworkError as any call.
 */
async function download(
  url: string,
  options: RequestOptions = {},
): Promise<{ blob: Blob; fileName: string | null }> {
  let response: Response;
  try {
    response = await fetch(url, { signal: options.signal, credentials: 'same-origin' });
  } catch (e) {
    if (options.signal?.aborted) throw e;
    throw networkFailure(e instanceof Error ? e.message : 'Request Error', url, options);
  }
  if (!response.ok) {
    // Not 2xx: always throws (an ApiError for an envelope, else a NetworkError).
    settleResponse(response.status, await response.text().catch(() => ''), url, options);
  }
  return {
    blob: await response.blob(),
    fileName: dispositionFileName(response.headers.get('content-disposition')),
  };
}

/** The one HTTP client: unwraps the envelope, throws ApiError / NetworkError, reports failures to the shell. */
export const apiClient = {
  get: <T>(url: string, options?: RequestOptions) => request<T>('GET', url, options),
  getPage,
  post: <T>(url: string, options?: RequestOptions) => request<T>('POST', url, options),
  put: <T>(url: string, options?: RequestOptions) => request<T>('PUT', url, options),
  patch: <T>(url: string, options?: RequestOptions) => request<T>('PATCH', url, options),
  delete: <T>(url: string, options?: RequestOptions) => request<T>('DELETE', url, options),
  download,
};
