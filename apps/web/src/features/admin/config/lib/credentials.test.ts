import { describe, expect, it } from 'vitest';
import { credentialsPayload } from './credentials';

describe('credentialsPayload', () => {
  it('sends only new values and clears; empty means unchanged', () => {
    expect(
      credentialsPayload({
        openai_api_key: { value: ' sk-1 ', clear: false },
        openai_web_access_token: { value: '', clear: false },
      }),
    ).toEqual({ openai_api_key: 'sk-1' });
    expect(credentialsPayload({ openai_api_key: { value: 'x', clear: true } })).toEqual({
      openai_api_key: null,
    });
    expect(credentialsPayload({})).toEqual({});
  });
});
