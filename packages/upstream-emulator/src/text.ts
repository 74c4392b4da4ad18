import { pick, prng } from './util';

const DONE_MARKER = '[DONE]';

/**
 * Splits text into pieces of `size` characters (code points). A piece never cuts the literal "[DONE]",
 * so a client that looks for that substring in a raw line is exposed in both protocols.
 */
export function chunkText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const chunks: string[] = [];
  let start = 0;
  while (start < chars.length) {
    let end = Math.min(chars.length, start + step);
    // Extend the piece when it ends inside a "[DONE]" literal.
    for (let back = 1; back < DONE_MARKER.length && end < chars.length; back++) {
      const from = end - back;
      if (from < start) break;
      if (chars.slice(from, from + DONE_MARKER.length).join('') === DONE_MARKER) {
        end = from + DONE_MARKER.length;
        break;
      }
    }
    chunks.push(chars.slice(start, end).join(''));
    start = end;
  }
  return chunks;
}

/** First characters of the prompt on one line, for echoing it back. */
export function excerpt(prompt: string, max = 100): string {
  const oneLine = prompt.replace(/\s+/g, ' ').trim();
  const chars = Array.from(oneLine);
  return chars.length <= max ? oneLine : `${chars.slice(0, max).join('').trimEnd()}…`;
}

/** Deterministic conversation title: the first words of the prompt in title case, or "New chat". */
export function titleFromPrompt(prompt: string): string {
  const words = prompt
    .replace(/#fault:\S+/gi, ' ')
    .replace(/[#*_`>[\]()]/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w !== '')
    .slice(0, 6);
  if (words.length === 0) return 'New chat';
  const title = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
  return Array.from(title).slice(0, 60).join('');
}

const VOCABULARY: readonly string[] = (
  'the upstream emulator streams a deterministic answer for every prompt and each chunk arrives in ' +
  'order while clients render markdown with care so that long conversations stay fast queue ' +
  'fairness keeps users happy when tokens flow steadily through relay server to browser quota ' +
  'counters record usage model replies are cumulative snapshots or small deltas depending on ' +
  'protocol network latency varies but text remains stable across runs'
).split(' ');

/** Exactly `n` whitespace-separated words of filler prose, in sentences. */
export function longText(n: number, seed: number): string {
  const rand = prng(seed);
  const parts: string[] = [];
  let sentenceLength = 0;
  for (let i = 0; i < n; i++) {
    let word = pick(rand, VOCABULARY);
    if (sentenceLength === 0) word = word.charAt(0).toUpperCase() + word.slice(1);
    sentenceLength++;
    const last = i === n - 1;
    if (last || (sentenceLength >= 8 && rand() < 0.2)) {
      word += '.';
      sentenceLength = 0;
    }
    parts.push(word);
    if (!last && sentenceLength === 0 && (i + 1) % 60 < 8 && rand() < 0.3) parts.push('\n\n');
  }
  // Paragraph breaks are separate entries: join so they replace the space.
  return parts.join(' ').replace(/ \n\n /g, '\n\n');
}

const SENTENCES = [
  'This reply comes from the Chat Commons upstream emulator, so it is the same every time you ask.',
  'The emulator streams its answer in small chunks, just like the real provider does.',
  'Nothing here reached a real AI provider; every word was generated locally and deterministically.',
  'You can change the pace of the stream with the knobs of the control endpoint.',
  'Try a prompt that starts with #long 500 to get a longer answer, or #code for a code interpreter run.',
  'Faults such as disconnects, stalls and malformed lines can be requested with #fault: directives.',
  'The same prompt always gives the same reply, which keeps tests and benchmarks repeatable.',
  'Conversations are kept in memory, with a mapping of messages, a current node and a title.',
  'Each web event is a full snapshot of the message so far, while the API sends deltas.',
  'Markdown, code blocks and inline math are rendered by the client, not by the emulator.',
] as const;

/** `count` distinct sentences chosen deterministically. */
export function sentences(seed: number, count: number): string[] {
  const rand = prng(seed);
  const pool: string[] = [...SENTENCES];
  const out: string[] = [];
  for (let i = 0; i < count && pool.length > 0; i++) {
    const index = Math.floor(rand() * pool.length);
    out.push(...pool.splice(index, 1));
  }
  return out;
}
