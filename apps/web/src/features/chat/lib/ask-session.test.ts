import { describe, expect, it } from 'vitest';
import { api, web } from '../../../test/fixtures';
import { textOf } from '../../../lib/conversation/history';
import { applyClose, applyFrame, describeAskFailure, startAsk } from './ask-session';

const t = (key: string) => `T(${key})`;

describe('ask session', () => {
  it('walks queueing → waiting → message frames with deltas, replacing the temp user bubble', () => {
    let s = startAsk(web('temp_user_1', 'user', 'hi'), null);
    s = applyFrame(s, { type: 'queueing', tip: 'tips.queueing', position: 2 });
    expect(s).toMatchObject({ phase: 'queueing', position: 2 });
    s = applyFrame(s, { type: 'waiting', tip: 'tips.waiting' });
    expect(s).toMatchObject({ phase: 'waiting', position: null });
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', message: web('u1', 'user', 'hi') });
    expect(s.messages.map((m) => m.id)).toEqual(['u1']);
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', message: web('a1', 'assistant', 'Hel') });
    const user = s.messages[0];
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', delta: { message_id: 'a1', append: 'lo' } });
    s = applyFrame(s, {
      type: 'message',
      conversation_id: 'c1',
      delta: { message_id: 'a1', append: '!' },
      title: 'Greeting',
    });
    expect(s.messages[0]).toBe(user);
    expect(textOf(s.messages[1]!)).toBe('Hello!');
    expect(s).toMatchObject({ phase: 'streaming', conversationId: 'c1', title: 'Greeting' });
    s = applyFrame(s, {
      type: 'message',
      conversation_id: 'c1',
      message: web('a1', 'assistant', 'Hello! Final'),
    });
    expect(textOf(s.messages[1]!)).toBe('Hello! Final');
    expect(applyClose(s, 1000, 'tips.finished', false).phase).toBe('finished');
  });

  it('appends api deltas to content.text and ignores deltas of unknown messages', () => {
    let s = startAsk(api('temp_user_1', 'user', 'q'), 'c1');
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', message: api('a', 'assistant', '') });
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', delta: { message_id: 'a', append: 'x' } });
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', delta: { message_id: 'zzz', append: 'y' } });
    expect(s.messages.map(textOf)).toEqual(['q', 'x']);
  });

  it('a stop after some text is a success, a stop before anything is an abort', () => {
    let s = startAsk(web('temp_user_1', 'user', 'hi'), null);
    expect(applyClose(s, 1000, '', true).phase).toBe('aborted');
    s = applyFrame(s, { type: 'message', conversation_id: 'c', message: web('a', 'assistant', 'par') });
    expect(applyClose(s, 1006, '', true).phase).toBe('finished');
  });

  it('describes an error frame and every close code in words', () => {
    let s = startAsk(null, 'c');
    s = applyFrame(s, { type: 'error', tip: 'errors.openai.429', error_detail: 'slow down' });
    s = applyClose(s, 1001, 'errors.openaiResponseUnknownError', false);
    expect(s.phase).toBe('failed');
    expect(describeAskFailure(s, t)).toBe('T(errors.openai.429): slow down');
    const refused = applyClose(startAsk(null, 'c'), 1008, 'errors.noAvailableModelAskCount', false);
    expect(describeAskFailure(refused, t)).toBe(
      'T(chat.close.1008) (1008): T(errors.noAvailableModelAskCount)',
    );
    expect(describeAskFailure(applyClose(startAsk(null, 'c'), 4999, '', false), t)).toBe(
      'T(chat.close.unknown) (4999)',
    );
    expect(applyClose(startAsk(null, 'c'), 1000, 'tips.finished', false).phase).toBe('failed');
  });
});
