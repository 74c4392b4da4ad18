import { describe, expect, it } from 'vitest';
import type { MessageParams } from '@cc/contracts';
import { i18n } from '../i18n';
import { ApiError, NetworkError, settleResponse } from './api-client';
import { describeRequestError } from './errors';

const t = (key: string, params?: MessageParams) =>
  params ? `T(${key},${JSON.stringify(params)})` : `T(${key})`;
const en = (key: string, params?: MessageParams) => i18n.getFixedT('en-US')(key, params);
const zh = (key: string, params?: MessageParams) => i18n.getFixedT('zh-CN')(key, params);

/** The error an envelope turns into, as the API client builds it. */
function apiError(status: number, body: unknown): unknown {
  try {
    settleResponse(status, JSON.stringify(body), '/api/x', { silent: true });
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

function shown(toast: { title: string; message: string }): string {
  return `${toast.title} | ${toast.message}`;
}

describe('describeRequestError', () => {
  it('builds code, translated message and translated result, 3 s', () => {
    const e = new ApiError(10403, 'errors.accessDenied', 'errors.noAvailableModelAskCount', 403, '/api/x');
    expect(describeRequestError(e, t)).toEqual({
      title: '10403 T(errors.accessDenied)',
      message: 'T(errors.noAvailableModelAskCount)',
      autoClose: 3000,
    });
  });

  it('lists validation issues with their translated messages', () => {
    const e = new ApiError(
      422,
      'errors.invalidParams',
      { detail: [{ loc: ['body', 'password'], msg: 'validation.passwordRule', type: 'custom' }] },
      422,
      '/api/user/me',
    );
    // "Field: message", the colon as the language writes it (full-width in Chinese).
    expect(describeRequestError(e, t).message).toBe(
      'T(common.labelled,{"label":"T(validation.field.password)","text":"T(validation.passwordRule)"})',
    );
  });

  it("translates zod's own English messages by issue type", () => {
    const e = apiError(422, {
      code: 422,
      message: 'errors.invalidParams',
      result: {
        detail: [
          {
            loc: ['body', 'nickname'],
            msg: 'Invalid input: expected string, received number',
            type: 'invalid_type',
          },
          {
            loc: ['body', 'email'],
            msg: 'Too small: expected string to have >=1 characters',
            type: 'too_small',
          },
          { loc: ['query', 'page'], msg: 'Something zod says', type: 'something_new' },
        ],
      },
    });
    expect(describeRequestError(e, en).message).toBe(
      'Nickname: Wrong kind of value; Email: Too small or too short; Page: Invalid value',
    );
    expect(describeRequestError(e, zh).message).toBe(
      '昵称：值的类型不正确；邮箱：值过小或过短；页码：值无效',
    );
  });

  it('names a field in words wherever in the request it was, and never by its raw name', () => {
    const e = apiError(422, {
      code: 422,
      message: 'errors.invalidParams',
      result: {
        detail: [
          { loc: ['querystring', 'title'], msg: 'Invalid input', type: 'invalid_type' },
          { loc: ['params', 'conversation_id'], msg: 'Invalid input', type: 'invalid_format' },
          { loc: ['body', 'items', 2, 'password'], msg: 'validation.passwordRule', type: 'custom' },
        ],
      },
    });
    const message = describeRequestError(e, zh).message;
    expect(message).toBe(`标题：值的类型不正确；格式不正确；密码：${zh('validation.passwordRule')}`);
    expect(message).not.toMatch(/querystring|params|conversation_id|title/);
  });

  it('says Request Error for 5 s on a network error', () => {
    expect(describeRequestError(new NetworkError('Failed to fetch', '/api/x'), t)).toEqual({
      title: 'T(errors.requestError)',
      message: '',
      autoClose: 5000,
    });
  });

  it('the rate limit reads "at most 5 per 60 s", in either language, without JSON', () => {
    const e = apiError(429, {
      code: 429,
      message: 'errors.rateLimited',
      result: null,
      params: { seconds: 60, max: 5 },
    });
    const english = shown(describeRequestError(e, en));
    expect(english).toContain('at most 5 per 60 s');
    expect(shown(describeRequestError(e, zh))).toContain('每 60 秒最多 5 次');
    for (const text of [english, shown(describeRequestError(e, zh))]) expect(text).not.toMatch(/[{}]/);
  });

  it('never shows a structured result as JSON', () => {
    const e = apiError(429, {
      code: 429,
      message: 'errors.rateLimited',
      result: { window_seconds: 60, max_requests: 5 },
    });
    const text = shown(describeRequestError(e, en));
    expect(text).not.toMatch(/[{}]|window_seconds/);
    expect(describeRequestError(e, en).message).toBe('');
  });

  it('a detail key is translated with the params; server text is not shown', () => {
    const exists = apiError(409, {
      code: 409,
      message: 'errors.userAlreadyExists',
      result: 'errors.detail.username',
      params: { username: 'ann' },
    });
    expect(describeRequestError(exists, zh)).toMatchObject({
      title: '409 用户已存在',
      message: '用户名：ann',
    });
    const english = apiError(404, { code: 404, message: 'errors.notFound', result: 'plugin p-123 is gone' });
    expect(describeRequestError(english, zh)).toMatchObject({ title: '404 404：未找到', message: '' });
  });

  it('an upstream failure reads as its translated message; no provider English, no internal codes', () => {
    const upstream = apiError(429, {
      code: 429,
      message: 'errors.openai.429',
      result: 'Rate limit reached for requests',
    });
    const text = shown(describeRequestError(upstream, zh));
    expect(text).toContain('上游返回 429');
    expect(text).not.toMatch(/Rate limit reached/);
    const network = apiError(502, {
      code: 502,
      message: 'errors.httpError',
      result: 'errors.detail.networkClosed',
    });
    expect(shown(describeRequestError(network, zh))).toBe('502 HTTP 错误 | 上游意外断开了连接');
    const old = apiError(502, {
      code: 502,
      message: 'errors.httpError',
      result: 'UND_ERR_SOCKET other side closed',
    });
    expect(shown(describeRequestError(old, en))).not.toMatch(/UND_ERR|other side/);
  });

  it('an unknown message key reads as "unknown error", never as the raw key', () => {
    const e = apiError(500, { code: 500, message: 'errors.somethingNew', result: null });
    expect(describeRequestError(e, en).title).toBe('500 Unknown error');
  });
});
