import { describe, expect, it } from 'vitest';
import type { AskResponse, MessageParams } from '@cc/contracts';
import { api, web } from '../../../test/fixtures';
import { i18n } from '../../../i18n';
import { textOf } from '../../../lib/conversation/history';
import {
  applyClose,
  applyFrame,
  askFailureRawDetail,
  canRetryAsk,
  describeAskFailure,
  isSessionExpired,
  startAsk,
} from './ask-session';
import type { AskState } from './ask-session';

/** A fake translation: keys as `T(key)`, and a labelled text as `label: text`. */
const t = (key: string, params?: MessageParams) =>
  key === 'common.labelled' ? `${params?.label}: ${params?.text}` : `T(${key})`;
const en = i18n.getFixedT('en-US');
const zh = i18n.getFixedT('zh-CN');

/** An ask that got this error frame and then the close the server sends after it. */
function failedWith(frame: AskResponse, close: [number, string]): AskState {
  return applyClose(applyFrame(startAsk(null, 'c'), frame), close[0], close[1], false);
}

describe('ask session', () => {
  it('an append frame adds its text to the message the last message frame named', () => {
    let s = startAsk(null, null);
    s = applyFrame(s, { type: 'append', text: 'lost' }); // nothing named yet: ignored
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', message: api('a1', 'assistant', 'Hel') });
    s = applyFrame(s, { type: 'append', text: 'lo, ' });
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', message: api('a2', 'assistant', 'Second') });
    s = applyFrame(s, { type: 'append', text: ' answer' });
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', delta: { message_id: 'a1', append: 'wor' } });
    s = applyFrame(s, { type: 'append', text: 'ld' });
    expect(s.messages.map((m) => textOf(m))).toEqual(['Hello, world', 'Second answer']);
    expect(s).toMatchObject({ phase: 'streaming', conversationId: 'c1', named: 'a1' });
  });

  it('a delta sets the fields that changed, keeps the text it streamed, and leaves the other messages alone', () => {
    let s = startAsk(null, null);
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', message: api('u1', 'user', 'hi') });
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', message: api('a1', 'assistant', 'Hel') });
    const user = s.messages[0];
    s = applyFrame(s, { type: 'append', text: 'lo' });
    s = applyFrame(s, {
      type: 'message',
      conversation_id: 'c1',
      delta: { message_id: 'a1', append: '!', set: { metadata: { finish_reason: 'stop', usage: null } } },
    });
    s = applyFrame(s, {
      type: 'message',
      conversation_id: 'c1',
      delta: { message_id: 'a1', append: '', set: { metadata: { finish_reason: 'stop', usage: { a: 1 } } } },
    });
    expect(s.messages[0]).toBe(user);
    expect(textOf(s.messages[1]!)).toBe('Hello!');
    expect(s.messages[1]).toMatchObject({
      id: 'a1',
      role: 'assistant',
      metadata: { finish_reason: 'stop', usage: { a: 1 } },
    });
    // A delta that changes nothing keeps the state's messages as they were (no row re-renders).
    const before = s.messages;
    s = applyFrame(s, { type: 'message', conversation_id: 'c1', delta: { message_id: 'a1', append: '' } });
    expect(s.messages).toBe(before);
  });

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
    // The provider's own words are not read inline: they wait behind the "details" disclosure.
    expect(describeAskFailure(s, t)).toBe('T(errors.openai.429)');
    expect(askFailureRawDetail(s)).toBe('slow down');
    const refused = applyClose(startAsk(null, 'c'), 1008, 'errors.noAvailableModelAskCount', false);
    // The close code is no words: it waits behind the details too.
    expect(describeAskFailure(refused, t)).toBe('T(chat.close.1008): T(errors.noAvailableModelAskCount)');
    expect(askFailureRawDetail(refused)).toBe('WebSocket 1008');
    expect(describeAskFailure(applyClose(startAsk(null, 'c'), 4999, '', false), t)).toBe(
      'T(chat.close.unknown)',
    );
    expect(applyClose(startAsk(null, 'c'), 1000, 'tips.finished', false).phase).toBe('failed');
  });

  it('the rate limit reads "at most 5 per 60 s" in en-US and in Chinese in zh-CN, without JSON', () => {
    const s = failedWith(
      { type: 'error', tip: 'errors.rateLimited', error_detail: null, params: { seconds: 60, max: 5 } },
      [1008, 'errors.rateLimited'],
    );
    expect(describeAskFailure(s, en)).toContain('at most 5 per 60 s');
    expect(describeAskFailure(s, zh)).toBe('提问过于频繁：每 60 秒最多 5 次，请稍候');
    expect(describeAskFailure(s, en)).not.toMatch(/[{}]/);
    // An older server's JSON detail is neither read inline nor offered as details.
    const old = failedWith(
      { type: 'error', tip: 'errors.rateLimited', error_detail: '{"window_seconds":60,"max_requests":5}' },
      [1008, 'errors.rateLimited'],
    );
    expect(describeAskFailure(old, zh)).not.toMatch(/[{}]|window_seconds/);
    expect(askFailureRawDetail(old)).toBeNull();
  });

  it('a question the server finds too long reads as such, with the limit, in both languages', () => {
    const s = failedWith(
      {
        type: 'error',
        tip: 'errors.messageTooLong',
        error_detail: 'validation.messageTooLong',
        params: { max: 100000 },
      },
      [1008, 'errors.messageTooLong'],
    );
    expect(describeAskFailure(s, en)).toBe(
      'The message is too long: A message can have at most 100000 characters',
    );
    expect(describeAskFailure(s, zh)).toBe('消息过长：一条消息最多 100000 个字符');
    expect(askFailureRawDetail(s)).toBeNull();
    // A message over the socket's frame limit is closed 1009 by the websocket library: said in words too.
    expect(describeAskFailure(applyClose(startAsk(null, 'c'), 1009, '', false), en)).toBe(
      'The message was too large to send',
    );
  });

  it('an upstream error reads as the translated tip; the provider text only as raw details', () => {
    const s = failedWith(
      {
        type: 'error',
        tip: 'errors.openai.429',
        error_detail: 'Rate limit reached for gpt-4 in organization',
      },
      [1001, 'errors.openaiResponseUnknownError'],
    );
    expect(describeAskFailure(s, zh)).toBe('上游返回 429：可能超出了模型使用限制，请稍后再试或联系管理员');
    expect(askFailureRawDetail(s)).toBe('Rate limit reached for gpt-4 in organization');
  });

  it('a network failure reads as translated words, never an internal code', () => {
    const s = failedWith(
      { type: 'error', tip: 'errors.httpError', error_detail: 'errors.detail.networkClosed' },
      [1014, 'errors.httpError'],
    );
    expect(describeAskFailure(s, zh)).toBe('HTTP 错误：上游意外断开了连接');
    expect(describeAskFailure(s, en)).toBe('HTTP error: The upstream closed the connection unexpectedly');
    expect(askFailureRawDetail(s)).toBeNull();
    // An older server sent undici's code and English text: neither reaches the screen.
    const old = failedWith(
      { type: 'error', tip: 'errors.httpError', error_detail: 'UND_ERR_SOCKET other side closed' },
      [1014, 'errors.httpError'],
    );
    expect(describeAskFailure(old, en)).toBe('HTTP error');
    expect(askFailureRawDetail(old)).toBeNull();
  });

  it('an unknown tip or a close reason that is not a key is never shown raw', () => {
    const s = failedWith({ type: 'error', tip: 'errors.brandNew' }, [1011, 'errors.unknownError']);
    expect(describeAskFailure(s, en)).toBe('Unknown error');
    const proxy = applyClose(startAsk(null, 'c'), 1008, 'Forbidden by proxy', false);
    expect(describeAskFailure(proxy, en)).toBe('The request was refused');
  });
});

describe('refusals a retry cannot get past', () => {
  it('the session is gone: the socket closes 1008 errors.unauthorized (no error frame)', () => {
    const closed = applyClose(startAsk(null, 'c'), 1008, 'errors.unauthorized', false);
    expect(isSessionExpired(closed)).toBe(true);
    // Other refusals with the same close code are not.
    expect(isSessionExpired(applyClose(startAsk(null, 'c'), 1008, 'errors.tooManySockets', false))).toBe(
      false,
    );
    const quota = failedWith({ type: 'error', tip: 'errors.noAvailableTotalAskCount' }, [
      1008,
      'errors.noAvailableTotalAskCount',
    ]);
    expect(isSessionExpired(quota)).toBe(false);
    // A stop by the user is not a failure at all.
    expect(isSessionExpired(applyClose(startAsk(null, 'c'), 1000, '', true))).toBe(false);
  });

  it('quota, budget and permission refusals offer no retry; other failures do', () => {
    for (const key of [
      'errors.noAvailableTotalAskCount',
      'errors.noAvailableModelAskCount',
      'errors.noAvailableGpt4AskCount',
      'errors.budgetSpent',
      'errors.dailyBudgetSpent',
      'errors.userNotAllowToUseModel',
    ]) {
      expect(canRetryAsk(failedWith({ type: 'error', tip: key }, [1008, key])), key).toBe(false);
      // Said by the close reason alone (no error frame arrived): the same.
      expect(canRetryAsk(applyClose(startAsk(null, 'c'), 1008, key, false)), key).toBe(false);
    }
    expect(canRetryAsk(failedWith({ type: 'error', tip: 'errors.timeout' }, [1001, 'errors.timeout']))).toBe(
      true,
    );
    expect(canRetryAsk(applyClose(startAsk(null, 'c'), 1006, '', false))).toBe(true);
    expect(canRetryAsk(applyClose(startAsk(null, 'c'), 1013, 'errors.temporarilyUnavailable', false))).toBe(
      true,
    );
  });
});
