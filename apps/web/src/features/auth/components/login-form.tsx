import { Button, PasswordInput, TextInput } from '@mantine/core';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserRead } from '@cc/contracts';
import { ApiError } from '../../../lib/api-client';
import { useLogin } from '../api/login';
import type { LoginInput } from '../api/login';
import { AuthCard } from './auth-frame';

interface Props {
  onSuccess: (user: UserRead) => void;
}

type FieldErrors = Partial<Record<'username' | 'password', string>>;

/**
 * The contract's LoginForm schema, fetched on the first submit: zod is a large part of the app's code and the
 * login page needs it for nothing else, so the first page loads without it.
 */
function loadLoginSchema() {
  return import('@cc/contracts/auth').then((m) => m.LoginForm);
}

/** Username + password; Enter submits; messages from the contract's LoginForm schema (SPEC §5). */
export function LoginForm({ onSuccess }: Props) {
  const { t } = useTranslation();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
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
      return;
    }
    setErrors({});
    login.run(
      { username: parsed.data.username, password: parsed.data.password },
      {
        onSuccess,
        onError: (error) => {
          if (error instanceof ApiError && error.code === 10401) setErrors({ password: t(error.messageKey) });
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

  return (
    <AuthCard onSubmit={handleSubmit}>
      <TextInput
        label={t('auth.username')}
        placeholder={t('auth.username')}
        autoComplete="username"
        value={username}
        onChange={(e) => setUsername(e.currentTarget.value)}
        error={errors.username}
        data-autofocus
        name="username"
      />
      <PasswordInput
        label={t('auth.password')}
        placeholder={t('auth.password')}
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.currentTarget.value)}
        error={errors.password}
        name="password"
      />
      <Button type="submit" fullWidth loading={login.pending}>
        {t('auth.login')}
      </Button>
    </AuthCard>
  );
}
