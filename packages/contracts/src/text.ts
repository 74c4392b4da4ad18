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

/**
 * Scripts told apart in names: those Unicode recommends for identifiers (UAX #31, table 5), and the rarer ones whose
 * letters pass for Latin ones (Cherokee "Ꭺ", Lisu "ꓮ", …). Letters of the scripts not named count as one more.
 */
const NAMED_SCRIPTS = (
  'Latin Greek Cyrillic Armenian Hebrew Arabic Thaana Devanagari Bengali Gurmukhi Gujarati Oriya Tamil Telugu ' +
  'Kannada Malayalam Sinhala Thai Lao Tibetan Myanmar Georgian Hangul Ethiopic Khmer Mongolian Han Hiragana ' +
  'Katakana Bopomofo Cherokee Coptic Lisu Canadian_Aboriginal Tifinagh Vai'
)
  .split(' ')
  .map((name) => [name, new RegExp(`\\p{Script=${name}}`, 'u')] as const);
/** Digits, punctuation, symbols and combining marks belong to every script. */
const ANY_SCRIPT = /[\p{Script=Common}\p{Script=Inherited}]/u;
/**
 * The mixes of scripts a single name may hold (UTS #39, "highly restrictive"): Latin with the scripts East Asian
 * writing mixes with it — Chinese, Japanese, Korean.
 */
const ALLOWED_MIXES = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
].map((mix) => new Set(mix));

/**
 * Whether a text mixes letters of several scripts beyond what one language writes (UTS #39, "highly restrictive"):
 * Latin with Cyrillic or Greek ("pаypal" with a Cyrillic "а" passes for "paypal"). Han with Latin, kana or Hangul,
 * digits and punctuation are fine.
 */
export function mixesScripts(text: string): boolean {
  const scripts = new Set<string>();
  for (const char of text) {
    if (ANY_SCRIPT.test(char)) continue;
    scripts.add(NAMED_SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'other');
  }
  if (scripts.size <= 1) return false;
  return !ALLOWED_MIXES.some((mix) => [...scripts].every((script) => mix.has(script)));
}
