import { useState } from 'react';
import type { UserRead } from '@cc/contracts';
import { apiPaths } from '../../../config/paths';
import { ApiError, NetworkError, apiClient } from '../../../lib/api-client';
import type { RequestError } from '../../../lib/api-client';
import { getMe, setLoginFlag } from '../../../lib/session-flag';

export interface LoginInput {
  username: string;
  password: string;
}

/**
 * POST /api/auth/login as a form (SPEC §7), then loads the user. The login request's own failure is not reported
 * (no toast, no message above the page): the form says why, once (see `isLoginRequestError`).
 */
export async function login(input: LoginInput): Promise<UserRead> {
  const form = new FormData();
  form.set('username', input.username);
  form.set('password', input.password);
  await apiClient.post<null>(apiPaths.login, { body: form, silent: true });
  setLoginFlag();
  return getMe({ noAuthDialog: true });
}

/** A failure of the login request itself (not of loading the user after it, which is reported as any request). */
export function isLoginRequestError(error: unknown): error is RequestError {
  return (error instanceof ApiError || error instanceof NetworkError) && error.url === apiPaths.login;
}

/** A login in flight: `pending` while it runs; the callbacks get the user or the failure. */
export function useLogin() {
  const [pending, setPending] = useState(false);
  const run = (
    input: LoginInput,
    handlers: { onSuccess: (user: UserRead) => void; onError: (error: unknown) => void },
  ) => {
    setPending(true);
    login(input).then(
      (user) => {
        setPending(false);
        handlers.onSuccess(user);
      },
      (error: unknown) => {
        setPending(false);
        handlers.onError(error);
      },
    );
  };
  return { pending, run };
}
