import { Alert, Button, PasswordInput, TextInput } from '@mantine/core';
import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserRead } from '@cc/contracts';
import { ApiError } from '../../../lib/api-client';
import { describeRequestError } from '../../../lib/errors';
import { isLoginRequestError, useLogin } from '../api/login';
import type { LoginInput } from '../api/login';
import { AuthCard } from './auth-frame';

interface Props {
  onSuccess: (user: UserRead) => void;
}

type FieldErrors = Partial<Record<'username' | 'password', string>>;

/** Why the server did not log the visitor in: said once for the whole form. */
interface Failure {
  text: string;
  /** Wrong username or password: both fields are marked invalid (the server does not say which). */
  credentials: boolean;
}

/**
 * The contract's LoginForm schema, fetched on the first submit: zod is a large part of the app's code and the
 * login page needs it for nothing else, so the first page loads without it.
 */
function loadLoginSchema() {
  return import('@cc/contracts/auth').then((m) => m.LoginForm);
}

/**
 * Username + password; Enter submits; messages from the contract's LoginForm schema (SPEC §5). A refusal is said
 * once above the fields (both marked invalid, and pointing at it); the password is selected to be typed again.
 */
export function LoginForm({ onSuccess }: Props) {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<Failure | null>(null);
  const failureId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);
  const login = useLogin();

  const submit = (schema: Awaited<ReturnType<typeof loadLoginSchema>>, input: LoginInput) => {
    if (login.pending) return;
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      const next: FieldErrors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0];
        if ((field === 'username' || field === 'password') && !next[field]) next[field] = t(issue.message);
      }
      setErrors(next);
      setFailure(null);
      return;
    }
    setErrors({});
    setFailure(null);
    login.run(
      { username: parsed.data.username, password: parsed.data.password },
      {
        onSuccess,
        onError: (error) => {
          // Loading the user after a successful login failed: that request is reported as any other.
          if (!isLoginRequestError(error)) return;
          if (error instanceof ApiError && error.code === 10401) {
            setFailure({ text: t(error.messageKey), credentials: true });
            // The submit button was busy (and the focus lost with it): the password is typed again.
            passwordRef.current?.focus();
            passwordRef.current?.select();
            return;
          }
          const { title, message } = describeRequestError(error, t);
          setFailure({
            text: message ? t('common.labelled', { label: title, text: message }) : title,
            credentials: false,
          });
        },
      },
    );
  };

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (login.pending) return;
    const input = { username: username.trim(), password };
    void loadLoginSchema().then((schema) => submit(schema, input));
  };

  // Both fields take part in a refused login: each is invalid and points at the form's message.
  const refused = failure?.credentials ? { 'aria-errormessage': failureId } : {};

  return (
    <AuthCard onSubmit={handleSubmit}>
      {failure && (
        <Alert color="red" role="alert" id={failureId} data-testid="login-failure">
          {failure.text}
        </Alert>
      )}
      <TextInput
        label={t('auth.username')}
        placeholder={t('auth.username')}
        autoComplete="username"
        value={username}
        onChange={(e) => setUsername(e.currentTarget.value)}
        error={errors.username ?? failure?.credentials}
        // The page is for logging in (Mantine's data-autofocus works only inside a focus trap).
        autoFocus
        name="username"
        {...refused}
      />
      <PasswordInput
        ref={passwordRef}
        label={t('auth.password')}
        placeholder={t('auth.password')}
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.currentTarget.value)}
        error={errors.password ?? failure?.credentials}
        // (Mantine's password field does not mark itself invalid.)
        aria-invalid={!!(errors.password ?? failure?.credentials) || undefined}
        name="password"
        {...refused}
      />
      <Button type="submit" fullWidth loading={login.pending}>
        {t('auth.login')}
      </Button>
    </AuthCard>
  );
}
