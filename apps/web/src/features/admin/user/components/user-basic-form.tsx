import { Button, Group, PasswordInput, Stack, Switch, TextInput, Textarea, Tooltip } from '@mantine/core';
import type { SwitchProps } from '@mantine/core';
import type { UserReadAdmin } from '@cc/contracts';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../../../../lib/api-client';
import { translateResult, translateServerMessage } from '../../../../lib/errors';
import { useUser } from '../../../../lib/session';
import { useAdminT } from '../../shared/admin-i18n';
import { issuesOf, issuesToErrors, serverIssuesToErrors } from '../../shared/form-errors';
import type { FieldErrors } from '../../shared/form-errors';
import { notifySuccess } from '../../shared/notify';
import { useCreateUser } from '../api/create-user';
import { useUpdateUser } from '../api/update-user';
import {
  EMPTY_USER_FORM,
  createPayload,
  updatePayload,
  userToForm,
  validateCreate,
  validateUpdate,
} from '../lib/user-form';
import type { UserFormValues } from '../lib/user-form';

/** The server's refusals of a username: taken (in any case), or too like another user's. */
const USERNAME_REFUSALS = new Set(['errors.userAlreadyExists', 'errors.usernameLookAlike']);

/**
 * A refused username is said on its field (and so takes the focus), not only in the toast: which user it is like,
 * for a look-alike.
 */
function usernameRefusal(
  error: unknown,
  t: (key: string, values?: Record<string, unknown>) => string,
): FieldErrors {
  if (!(error instanceof ApiError) || !USERNAME_REFUSALS.has(error.messageKey)) return {};
  const title = translateServerMessage(error.messageKey, t, error.params);
  if (error.messageKey !== 'errors.usernameLookAlike') return { username: title };
  const like = translateResult(error.result, t, error.params);
  return { username: like ? t('common.labelled', { label: title, text: like }) : title };
}

/** A switch that cannot be used here, and the reason on hover. */
function LockedSwitch({ locked, reason, ...props }: SwitchProps & { locked: boolean; reason: string }) {
  if (!locked) return <Switch {...props} />;
  return (
    <Tooltip label={reason} multiline w={280} events={{ hover: true, focus: false, touch: true }}>
      {/* A disabled input gets no pointer events: the tooltip hangs on a wrapper. */}
      <span data-testid="locked-switch">
        <Switch {...props} disabled />
      </span>
    </Tooltip>
  );
}

/**
 * Create a user (no user given) or edit the basic fields and flags of one. On the admin's own row the active and
 * superuser switches are locked: the server refuses to let an admin deactivate or demote themself.
 */
export function UserBasicForm({ user, onDone }: { user?: UserReadAdmin; onDone: () => void }) {
  const { ta } = useAdminT();
  const { t, i18n } = useTranslation();
  const me = useUser().data;
  const isSelf = !!user && me?.id === user.id;
  const [values, setValues] = useState<UserFormValues>(() => (user ? userToForm(user) : EMPTY_USER_FORM));
  const [errors, setErrors] = useState<FieldErrors>({});
  // A submit that found errors: the first invalid field takes the focus once they are shown.
  const [refusals, setRefusals] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (refusals > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [refusals]);
  const create = useCreateUser();
  const update = useUpdateUser();
  const exists = (key: string) => i18n.exists(key);

  const set = <K extends keyof UserFormValues>(key: K, value: UserFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  const handleSubmit = async () => {
    const issues = user ? validateUpdate(values, user) : validateCreate(values);
    setErrors(issuesToErrors(issues, t, exists));
    if (issues.length > 0) {
      setRefusals((n) => n + 1);
      return;
    }
    try {
      if (user) {
        const patch = updatePayload(values, user);
        if (Object.keys(patch).length > 0) await update.mutateAsync({ id: user.id, patch });
        notifySuccess(ta('common.saved'));
      } else {
        // Named as stored: a name typed in full-width letters is kept in plain ones.
        const created = await create.mutateAsync(createPayload(values));
        notifySuccess(ta('user.createdMessage', { username: created.username }));
      }
      onDone();
    } catch (error) {
      setErrors({ ...serverIssuesToErrors(issuesOf(error), t, exists), ...usernameRefusal(error, t) });
      setRefusals((n) => n + 1);
    }
  };

  return (
    <form
      ref={formRef}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void handleSubmit();
      }}
    >
      <Stack gap="sm">
        <TextInput
          label={ta('user.username')}
          required
          autoComplete="off"
          value={values.username}
          onChange={(e) => set('username', e.currentTarget.value)}
          error={errors.username}
        />
        <TextInput
          label={ta('user.nickname')}
          required
          value={values.nickname}
          onChange={(e) => set('nickname', e.currentTarget.value)}
          error={errors.nickname}
        />
        <TextInput
          label={ta('user.email')}
          required
          type="email"
          value={values.email}
          onChange={(e) => set('email', e.currentTarget.value)}
          error={errors.email}
        />
        <PasswordInput
          label={ta('user.password')}
          required={!user}
          autoComplete="new-password"
          // The rule once: as the error when it is broken, else as the field's description.
          description={
            user ? ta('user.passwordUnchanged') : errors.password ? undefined : t('validation.passwordRule')
          }
          value={values.password}
          onChange={(e) => set('password', e.currentTarget.value)}
          error={errors.password}
          // (Mantine's password field does not mark itself invalid.)
          aria-invalid={!!errors.password || undefined}
        />
        <TextInput
          label={ta('user.avatar')}
          placeholder="https://…"
          value={values.avatar}
          onChange={(e) => set('avatar', e.currentTarget.value)}
          error={errors.avatar}
        />
        <Textarea
          label={ta('user.remark')}
          autosize
          minRows={2}
          value={values.remark}
          onChange={(e) => set('remark', e.currentTarget.value)}
          error={errors.remark}
        />
        <Group gap="lg">
          <LockedSwitch
            locked={isSelf}
            reason={ta('user.selfActiveLocked')}
            label={ta('user.isActive')}
            checked={values.is_active}
            onChange={(e) => set('is_active', e.currentTarget.checked)}
          />
          <LockedSwitch
            locked={isSelf}
            reason={ta('user.selfSuperuserLocked')}
            label={ta('user.isSuperuser')}
            checked={values.is_superuser}
            onChange={(e) => set('is_superuser', e.currentTarget.checked)}
          />
          <Switch
            label={ta('user.isVerified')}
            checked={values.is_verified}
            onChange={(e) => set('is_verified', e.currentTarget.checked)}
          />
        </Group>
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onDone}>
            {ta('common.cancel')}
          </Button>
          <Button type="submit" loading={create.isPending || update.isPending}>
            {user ? ta('common.save') : ta('common.create')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
