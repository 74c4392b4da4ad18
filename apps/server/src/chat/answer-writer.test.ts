import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Executor } from '../repositories/executor';
import { ANSWER_WRITE_INTERVAL_MS, AnswerWriter } from './answer-writer';
import type { AnswerWrite, AnswerWriteSource } from './answer-writer';

/** A database that records which rows each transaction committed; a row named "bad" fails its transaction. */
function recordingDb() {
  const committed: string[][] = [];
  return {
    committed,
    transaction: () => ({
      async execute<T>(fn: (trx: Executor) => Promise<T>): Promise<T> {
        const rows: string[] = [];
        const result = await fn(rows as unknown as Executor);
        if (rows.includes('bad')) throw new Error('constraint failed');
        committed.push(rows);
        return result;
      },
    }),
  };
}

/** An answer with pending rows; `written` promises are kept to check its writes are ordered. */
class FakeAnswer implements AnswerWriteSource {
  pending: string[] = [];
  taken: Promise<void>[] = [];
  constructor(readonly name: string) {}
  take(written: Promise<void>): AnswerWrite | null {
    if (this.pending.length === 0) return null;
    const rows = this.pending;
    this.pending = [];
    this.taken.push(written);
    return {
      apply: (db) => {
        (db as unknown as string[]).push(...rows);
        return Promise.resolve();
      },
      failed: () => (this.pending = [...rows, ...this.pending]),
    };
  }
}

const log = { warn: vi.fn(), error: vi.fn() };
// Only the interval is faked: the batch's turns to the event loop (setImmediate) run for real.
beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
afterEach(() => vi.useRealTimers());

describe('AnswerWriter', () => {
  it('writes every marked answer once per interval, 50 to a transaction, and nothing when nothing changed', async () => {
    const db = recordingDb();
    const writer = new AnswerWriter(db, log);
    const answers = Array.from({ length: 60 }, (_, i) => new FakeAnswer(`a${i}`));
    for (const a of answers) {
      a.pending.push(`${a.name}:1`);
      writer.mark(a);
      writer.mark(a); // marked twice, written once
    }
    await vi.advanceTimersByTimeAsync(ANSWER_WRITE_INTERVAL_MS);
    await writer.flush(); // waits for the batch under way
    expect(db.committed.map((rows) => rows.length)).toEqual([50, 10]);
    await vi.advanceTimersByTimeAsync(3 * ANSWER_WRITE_INTERVAL_MS);
    expect(db.committed).toHaveLength(2);
    answers[3]!.pending.push('a3:2');
    writer.mark(answers[3]!);
    await vi.advanceTimersByTimeAsync(ANSWER_WRITE_INTERVAL_MS);
    expect(db.committed).toEqual([expect.any(Array), expect.any(Array), ['a3:2']]);
    await writer.close();
  });

  it("one answer's bad row does not hold back the others: they are written on their own, it is kept for later", async () => {
    const db = recordingDb();
    const writer = new AnswerWriter(db, log);
    const good = new FakeAnswer('good');
    const bad = new FakeAnswer('bad');
    good.pending.push('g1');
    bad.pending.push('bad');
    writer.mark(good);
    writer.mark(bad);
    await vi.advanceTimersByTimeAsync(ANSWER_WRITE_INTERVAL_MS);
    expect(db.committed).toEqual([['g1']]);
    // The bad answer keeps its row and is tried again; the batch's promise told its own flushes it failed.
    expect(bad.pending).toEqual(['bad']);
    await expect(good.taken[0]).rejects.toThrow('constraint failed');
    await expect(good.taken[1]).resolves.toBeUndefined();
    bad.pending = ['b2'];
    await vi.advanceTimersByTimeAsync(ANSWER_WRITE_INTERVAL_MS);
    expect(db.committed).toEqual([['g1'], ['b2']]);
    await writer.close();
  });

  it('writes at most its share an interval, the answers waiting longest first; flush writes them all', async () => {
    const db = recordingDb();
    const writer = new AnswerWriter(db, log, ANSWER_WRITE_INTERVAL_MS, 120);
    const answers = Array.from({ length: 300 }, (_, i) => new FakeAnswer(`a${i}`));
    const streamOn = (a: FakeAnswer, n: number) => {
      a.pending.push(`${a.name}:${n}`);
      writer.mark(a);
    };
    /** The interval passes and its batch (transactions a turn of the event loop apart) is written. */
    const interval = async () => {
      await vi.advanceTimersByTimeAsync(ANSWER_WRITE_INTERVAL_MS);
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    for (const a of answers) streamOn(a, 1);
    await interval();
    const written = () => db.committed.flat();
    expect(written()).toEqual(answers.slice(0, 120).map((a) => `${a.name}:1`));
    // Every answer streams on; the ones not written yet go first, the ones just written wait their turn again.
    for (const a of answers) streamOn(a, 2);
    await interval();
    expect(written().slice(120)).toEqual(
      answers
        .slice(120, 240)
        .map((a) => `${a.name}:1,${a.name}:2`.split(','))
        .flat(),
    );
    await writer.flush();
    expect(written()).toHaveLength(120 + 240 + 60 * 2 + 120);
    expect(answers.every((a) => a.pending.length === 0)).toBe(true);
    await writer.close();
  });

  it('close writes what is waiting and stops marking', async () => {
    const db = recordingDb();
    const writer = new AnswerWriter(db, log);
    const a = new FakeAnswer('a');
    a.pending.push('last');
    writer.mark(a);
    await writer.close();
    expect(db.committed).toEqual([['last']]);
    a.pending.push('after');
    writer.mark(a);
    await vi.advanceTimersByTimeAsync(2 * ANSWER_WRITE_INTERVAL_MS);
    expect(db.committed).toEqual([['last']]);
  });
});
