import type { ApiChatMessage, AskResponse } from '@cc/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AnswerLog } from '../coordination/answer-log';
import { frameOf, replay } from '../test/chat-client';
import { AnswerChannel, FRAME_GAP_MS, appendedText } from './answer-channel';

function answer(id: string, text: string): ApiChatMessage {
  return {
    id,
    source: 'openai_api',
    role: 'assistant',
    author_name: null,
    model: 'gpt_3_5',
    create_time: '2026-01-01T00:00:00Z',
    parent: null,
    children: [],
    content: { content_type: 'text', text },
    metadata: {},
  };
}

function channel(mode: 'full' | 'delta') {
  const logged: string[] = [];
  const log = {
    append: (_u: number, _a: string, frame: string) => logged.push(frame),
  } as unknown as AnswerLog;
  /** What went to the socket: JSON frames, and appends as their text alone (`binary`). */
  const sent: { data: string; binary: boolean }[] = [];
  const socket = {
    send: (data: string) => sent.push({ data, binary: false }),
    append: (text: string) => sent.push({ data: text, binary: true }),
    close: () => undefined,
  };
  const c = new AnswerChannel(log, 1, 'ask', socket, mode);
  return {
    c,
    logged: () => logged.map((d) => JSON.parse(d) as AskResponse),
    sent: () => sent.map((m) => frameOf(m.data, m.binary)),
    rawSent: () => sent,
  };
}
beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());
/** Lets the current turn end (no time passes). */
const nextTurn = () => vi.advanceTimersByTime(0);

describe('answer frames', () => {
  it('chunks that arrive close together go out as one append frame without ids; the log holds the same frames', () => {
    const { c, logged, sent, rawSent } = channel('delta');
    c.message('conv', answer('m1', 'Hel'));
    c.message('conv', answer('m1', 'Hello'));
    nextTurn();
    // A frame went out just now: the next chunks wait for the rest of the gap, together.
    expect(sent()).toHaveLength(1);
    vi.advanceTimersByTime(20);
    c.message('conv', answer('m1', 'Hello, wor'));
    vi.advanceTimersByTime(FRAME_GAP_MS - 20);
    expect(sent()[1]).toEqual({ type: 'append', text: 'lo, wor' });
    // To the socket, the text alone: no envelope, no ids.
    expect(rawSent()[1]).toEqual({ data: 'lo, wor', binary: true });
    // After a quiet spell a chunk goes out at the end of its turn.
    vi.advanceTimersByTime(FRAME_GAP_MS);
    c.message('conv', answer('m1', 'Hello, world'));
    nextTurn();
    expect(sent()[2]).toEqual({ type: 'append', text: 'ld' });
    // The end changes fields, in two snapshots: one delta with the last text and the fields' last values; nothing
    // repeats the message.
    vi.advanceTimersByTime(20);
    c.message('conv', { ...answer('m1', 'Hello, world!'), metadata: { finish_reason: 'stop' } });
    c.message('conv', {
      ...answer('m1', 'Hello, world!'),
      metadata: { finish_reason: 'stop', usage: { prompt_tokens: 1, completion_tokens: 3 } },
    });
    c.endMessages();
    expect(sent().map((f) => f.type)).toEqual(['message', 'append', 'append', 'message']);
    expect(sent()[3]).toEqual({
      type: 'message',
      conversation_id: 'conv',
      delta: {
        message_id: 'm1',
        append: '!',
        set: { metadata: { finish_reason: 'stop', usage: { prompt_tokens: 1, completion_tokens: 3 } } },
      },
    });
    expect(logged()).toEqual(sent());
    expect(replay(sent()).get('m1')).toBe('Hello, world!');
  });

  it('the end sends the text still waiting for its gap', () => {
    const { c, sent } = channel('delta');
    c.message('conv', answer('m1', 'Hel'));
    c.message('conv', answer('m1', 'Hello'));
    expect(sent()).toHaveLength(1);
    c.endMessages();
    expect(sent()[1]).toEqual({ type: 'append', text: 'lo' });
  });

  it('no chunk waits longer than the gap, and pending text goes out before any other frame', () => {
    const { c, sent } = channel('delta');
    c.message('conv', answer('m1', 'a'));
    for (let i = 1; i <= 10; i++) {
      vi.advanceTimersByTime(10);
      c.message('conv', answer('m1', 'a' + 'b'.repeat(i)));
    }
    // 100 ms of chunks every 10 ms: an append every 50 ms (the chunks of 10–40 ms, then of 50–90 ms); the one of
    // 100 ms waits for the next gap.
    expect(sent().map((f) => (f.type === 'append' ? f.text.length : f.type))).toEqual(['message', 4, 5]);
    vi.advanceTimersByTime(10);
    c.message('conv', answer('m1', 'a' + 'b'.repeat(10) + 'c'));
    c.send({ type: 'message', conversation_id: 'conv', title: 'A title' });
    expect(
      sent()
        .map((f) => (f.type === 'append' ? f.text : f.type))
        .slice(-2),
    ).toEqual(['bc', 'message']);
  });

  it('a second message is named again; appends then go to it', () => {
    const { c, sent } = channel('delta');
    c.message('conv', answer('m1', 'one'));
    c.message('conv', answer('m2', 'two'));
    c.message('conv', answer('m2', 'two more'));
    c.message('conv', answer('m1', 'one more'));
    vi.advanceTimersByTime(FRAME_GAP_MS);
    const texts = replay(sent());
    expect(texts.get('m1')).toBe('one more');
    expect(texts.get('m2')).toBe('two more');
  });

  it('full mode sends the newest whole message once per gap', () => {
    const { c, sent, logged } = channel('full');
    c.message('conv', answer('m1', 'a'));
    c.message('conv', answer('m1', 'ab'));
    c.message('conv', answer('m1', 'abc'));
    nextTurn();
    expect(sent()).toEqual([{ type: 'message', conversation_id: 'conv', message: answer('m1', 'abc') }]);
    // The log stays delta-encoded for resumes.
    expect(logged().map((f) => f.type)).toEqual(['message', 'append']);
  });

  it("a logged append frame gives back its text (a resume sends it as the live socket got it); others don't", () => {
    const log: string[] = [];
    const c = new AnswerChannel(
      { append: (_u: number, _a: string, frame: string) => log.push(frame) } as unknown as AnswerLog,
      1,
      'ask',
      null,
      'delta',
    );
    c.message('conv', answer('m1', '{"type":"append","text":'));
    c.message('conv', answer('m1', '{"type":"append","text":"é 😀\n"}'));
    c.endMessages();
    c.send({ type: 'message', conversation_id: 'conv', title: 'A title' });
    expect(log.map(appendedText)).toEqual([null, '"é 😀\n"}', null]);
  });
});
