import { afterEach, describe, expect, it } from 'vitest';
import { closeScripted, readAsk, scriptedUpstream as upstream } from '../test/scripted-upstream';
import { UpstreamError } from './errors';
import { openaiApiAdapter } from './openai-api';

afterEach(closeScripted);

const delta = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;
const finish = `data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] })}\n\n`;

describe('the API source streaming an answer', () => {
  it('relays the chunks of one read as one snapshot, and each later read as its own', async () => {
    const up = await upstream([
      delta('a') + delta('b') + delta('c'),
      delta('d'),
      finish + 'data: [DONE]\n\n',
    ]);
    const { texts, failure } = await readAsk(openaiApiAdapter, up);
    expect(failure).toBeUndefined();
    expect(texts).toEqual(['abc', 'abcd', 'abcd']);
  });

  it('says what each snapshot appended to the text, and nothing when a chunk replaced it', async () => {
    const whole = `data: ${JSON.stringify({ choices: [{ message: { content: 'Whole' } }] })}\n\n`;
    const up = await upstream([
      delta('a') + delta('b'),
      delta('c'),
      whole,
      delta('!'),
      finish + 'data: [DONE]\n\n',
    ]);
    const { events } = await readAsk(openaiApiAdapter, up);
    const messages = events.flatMap((e) => (e.type === 'message' ? [e] : []));
    expect(messages.map((e) => [(e.message.content as { text: string }).text, e.appended])).toEqual([
      ['ab', 'ab'],
      ['abc', 'c'],
      ['Whole', undefined],
      ['Whole!', '!'],
      ['Whole!', ''],
    ]);
  });

  it('an error event keeps what came before it in the same read, then fails', async () => {
    const error = `data: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`;
    const up = await upstream([delta('a'), delta('b') + error + delta('never')]);
    const { texts, failure } = await readAsk(openaiApiAdapter, up);
    expect(texts).toEqual(['a', 'ab']);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as Error).message).toContain('overloaded');
  });

  it('a stream closed after its finish reason without [DONE] is complete; without one it was cut off', async () => {
    const complete = await readAsk(openaiApiAdapter, await upstream([delta('a'), finish]));
    expect(complete.failure).toBeUndefined();
    expect(complete.events.at(-1)?.type).toBe('usage');
    await closeScripted();
    const cut = await readAsk(openaiApiAdapter, await upstream([delta('a')]));
    expect(cut.texts).toEqual(['a']);
    expect(cut.failure).toBeInstanceOf(Error);
  });

  it('an answer ended by [DONE] without a finish reason is stored as finished (stop), not as cut off', async () => {
    const { events, failure } = await readAsk(
      openaiApiAdapter,
      await upstream([delta('a'), 'data: [DONE]\n\n']),
    );
    expect(failure).toBeUndefined();
    const last = events.flatMap((e) => (e.type === 'message' ? [e] : [])).at(-1);
    expect(last?.message.metadata).toMatchObject({ finish_reason: 'stop' });
    expect(last?.appended).toBe('');
  });
});
