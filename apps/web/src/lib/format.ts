/** Timestamps are UTC on the wire; they are shown in the viewer's own zone and language. */
export function parseTime(value: string | null | undefined): Date | null {
  if (!value) return null;
  // A naive timestamp (no zone) is UTC.
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

// Building an Intl formatter costs far more than formatting with one (a row re-rendering every animation frame
// while an answer streams would build one per frame): one formatter per language, made on first use.
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();

function dateTimeFormat(language: string): Intl.DateTimeFormat {
  let format = dateTimeFormats.get(language);
  if (!format) {
    // h23, not hour12: false (en-US shows midnight as "24:05" with it).
    format = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' });
    dateTimeFormats.set(language, format);
  }
  return format;
}

function relativeFormat(language: string): Intl.RelativeTimeFormat {
  let format = relativeFormats.get(language);
  if (!format) {
    format = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
    relativeFormats.set(language, format);
  }
  return format;
}

/**
 * Builds the language's formatters ahead of use. The first one of a page costs tens of milliseconds (the language's
 * data is loaded): done while the page waits for its data, it is not part of the first render of a conversation.
 */
export function warmFormatters(language: string): void {
  relativeFormat(language);
  dateTimeFormat(language);
}

export function formatDateTime(value: string | null | undefined, language: string): string {
  const date = parseTime(value);
  if (!date) return '';
  return dateTimeFormat(language).format(date);
}

/** "just now", "5 min ago", …; older than a week: the absolute date. */
export function formatRelative(value: string | null | undefined, language: string, now = Date.now()): string {
  const date = parseTime(value);
  if (!date) return '';
  const seconds = Math.round((date.getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  const rtf = relativeFormat(language);
  if (abs < 45) return rtf.format(0, 'second');
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return rtf.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return rtf.format(Math.round(seconds / 86_400), 'day');
  return formatDateTime(value, language);
}

export function formatBytes(size: number | null | undefined): string {
  if (size === null || size === undefined || size < 0) return '';
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(2)} ${units[unit]}`;
}
