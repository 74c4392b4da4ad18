/**
 * Delta frames of one long streamed answer: the frame encoder (apps/server/src/chat/frames.ts) given the
 * snapshots of an answer built as the API source builds it (its text grown by appending each chunk), once reading
 * the new text out of each snapshot's text and once told what the snapshot appended (SourceEvent.appended), as the
 * API source now does. Reading into a text grown piece by piece copies all of it, so the first way costs time
 * proportional to the square of the answer's length.
 *
 * Run: `node --import tsx bench/long-answer.ts [runs=5]`. Prints a table and saves bench/results/long-answer.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ApiChatMessage } from '@cc/contracts';
import { FrameEncoder } from '../apps/server/src/chat/frames';

const runs = Number(process.argv[2] ?? 5);
const CHUNK = 'word '; // ~ one token, as providers stream them
const SIZES = [1_000, 4_000, 16_000, 32_000];

function snapshot(text: string): ApiChatMessage {
  return {
    id: 'answer',
    source: 'openai_api',
    role: 'assistant',
    author_name: null,
    model: 'gpt_3_5',
    create_time: '2026-01-01T00:00:00Z',
    parent: 'question',
    children: [],
    content: { content_type: 'text', text },
    metadata: { usage: null, finish_reason: null },
  };
}

/** Milliseconds to encode one answer of `chunks` chunks (its snapshots made as the source makes them). */
function encodeAnswer(chunks: number, told: boolean): number {
  const encoder = new FrameEncoder('delta');
  let text = '';
  let appended = 0;
  const started = performance.now();
  for (let i = 0; i < chunks; i++) {
    text += CHUNK;
    const frame = encoder.encode('conversation', snapshot(text), told ? CHUNK : undefined);
    if (frame.type === 'message' && frame.delta) appended += frame.delta.append.length;
  }
  const ms = performance.now() - started;
  if (appended !== text.length - CHUNK.length) throw new Error('the deltas do not add up to the answer');
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Warm-up: the first answers also compile the encoder.
for (let i = 0; i < 20; i++) {
  encodeAnswer(1_000, false);
  encodeAnswer(1_000, true);
}

const results = SIZES.map((chunks) => {
  const read: number[] = [];
  const toldMs: number[] = [];
  for (let r = 0; r < runs; r++) {
    read.push(encodeAnswer(chunks, false));
    toldMs.push(encodeAnswer(chunks, true));
  }
  return {
    chunks,
    characters: chunks * CHUNK.length,
    read_ms: Number(median(read).toFixed(2)),
    told_ms: Number(median(toldMs).toFixed(2)),
  };
});
console.table(results);
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'long-answer.json');
writeFileSync(out, `${JSON.stringify({ node: process.version, runs, chunk: CHUNK, results }, null, 2)}\n`);
console.log(`saved ${path.relative(process.cwd(), out)}`);
