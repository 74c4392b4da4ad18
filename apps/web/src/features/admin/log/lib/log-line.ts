/** Levels of the server's log lines (pino's numbers), lowest first. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const PINO_LEVELS: Record<number, LogLevel> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** One line of the server log, read for people: when, how bad, what, for which request, and the rest. */
export interface LogEntry {
  /** Epoch ms, or null when the line carries none. */
  time: number | null;
  level: LogLevel | null;
  message: string;
  /** "GET /api/user/me" (and the status when the line has it), or null. */
  request: string | null;
  /** Every other field, flattened to "a.b" = text. */
  details: [string, string][];
  /** The line as the server wrote it (search and download use it). */
  raw: string;
}

/** Fields shown in their own places, not among the details. */
const SHOWN = new Set(['time', 'level', 'msg', 'req', 'res', 'pid', 'hostname']);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

function flatten(value: unknown, prefix: string, out: [string, string][]): void {
  if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (Array.isArray(value)) {
    out.push([prefix, value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')]);
  } else if (typeof value === 'string') {
    out.push([prefix, value]);
  } else if (value !== undefined && value !== null) {
    out.push([prefix, JSON.stringify(value)]);
  }
}

function levelOf(value: unknown, line: string): LogLevel | null {
  if (typeof value === 'number') return PINO_LEVELS[value] ?? null;
  if (typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value))
    return value as LogLevel;
  // A line that is not pino's JSON: guess from the words it carries.
  if (/\b(ERROR|CRITICAL|FATAL)\b/.test(line)) return 'error';
  if (/\bWARN(ING)?\b/.test(line)) return 'warn';
  return null;
}

function requestOf(record: Record<string, unknown>): string | null {
  const req = isRecord(record.req) ? record.req : null;
  const url = typeof req?.url === 'string' ? req.url : typeof record.url === 'string' ? record.url : null;
  if (!url) return null;
  const method = typeof req?.method === 'string' ? `${req.method} ` : '';
  const status =
    isRecord(record.res) && typeof record.res.statusCode === 'number' ? ` → ${record.res.statusCode}` : '';
  return `${method}${url}${status}`;
}

/** Reads one log line: pino's JSON, or any other text kept as the message. */
export function parseLogLine(raw: string): LogEntry {
  let record: unknown = null;
  if (raw.startsWith('{')) {
    try {
      record = JSON.parse(raw);
    } catch {
      record = null;
    }
  }
  if (!isRecord(record))
    return { time: null, level: levelOf(null, raw), message: raw, request: null, details: [], raw };
  const details: [string, string][] = [];
  for (const [k, v] of Object.entries(record)) if (!SHOWN.has(k)) flatten(v, k, details);
  const req = isRecord(record.req) ? record.req : {};
  for (const [k, v] of Object.entries(req))
    if (k !== 'url' && k !== 'method') flatten(v, `req.${k}`, details);
  return {
    time:
      typeof record.time === 'number'
        ? record.time
        : typeof record.time === 'string'
          ? Date.parse(record.time)
          : null,
    level: levelOf(record.level, raw),
    message: typeof record.msg === 'string' ? record.msg : '',
    request: requestOf(record),
    details,
    raw,
  };
}

/** Whether an entry holds the search text (case-insensitive), in what is shown or in the raw line. */
export function entryMatches(entry: LogEntry, search: string): boolean {
  const needle = search.trim().toLowerCase();
  if (!needle) return true;
  return (
    entry.raw.toLowerCase().includes(needle) ||
    entry.message.toLowerCase().includes(needle) ||
    (entry.request?.toLowerCase().includes(needle) ?? false)
  );
}
