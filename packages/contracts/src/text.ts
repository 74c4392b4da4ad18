// No schema here: the web's route guard checks redirects with it before any page loads zod.
// Cs: half of a character outside the basic plane, alone (no text: encodeURIComponent throws on it).
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}]/u;
const EVERY_INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}]/gu;

/**
 * Whether a text holds control characters (NUL, newlines, escapes) or invisible format characters (zero-width spaces,
 * a right-to-left override, which shows "invoice<RLO>fdp.exe" as "invoiceexe.pdf").
 */
export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}

/** The text without its control and invisible format characters. */
export function withoutInvisible(text: string): string {
  return text.replace(EVERY_INVISIBLE, '');
}

/**
 * The text on one line: line breaks, tabs and runs of spaces become one space (before the other control characters
 * are dropped, so "a\nb" stays two words), control and invisible characters go, and the ends are trimmed.
 */
export function oneLine(text: string): string {
  return withoutInvisible(text.replace(/\s+/g, ' ')).trim();
}

/**
 * A conversation's title as it is kept and shown: on one line, without control or invisible characters, trimmed;
 * null when nothing is left (an untitled conversation).
 */
export function cleanTitle(title: string | null): string | null {
  if (title === null) return null;
  return oneLine(title) || null;
}

/**
 * The text cut to at most `max` UTF-16 units, never between the two halves of a character outside the basic plane
 * (an emoji): half a character is no text (`encodeURIComponent` throws on it, a database keeps a replacement sign).
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
