import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError } from './api-client';
import { describeRequestError } from './errors';

const t = (key: string) => `T(${key})`;

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
    expect(describeRequestError(e, t).message).toBe('password: T(validation.passwordRule)');
  });

  it('says Request Error for 5 s on a network error', () => {
    expect(describeRequestError(new NetworkError('Failed to fetch', '/api/x'), t)).toEqual({
      title: 'T(errors.requestError)',
      message: '',
      autoClose: 5000,
    });
  });
});
