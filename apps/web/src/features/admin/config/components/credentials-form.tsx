import { Button, Checkbox, Group, Loader, PasswordInput, Stack, Text } from '@mantine/core';
import type { CredentialsRead } from '@cc/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadError } from '../../../../components/load-error';
import { useAdminT } from '../../shared/admin-i18n';
import { issuesOf, serverIssuesToErrors } from '../../shared/form-errors';
import { notifySuccess } from '../../shared/notify';
import { useConfigSchema } from '../api/get-config-schema';
import { useCredentials } from '../api/get-credentials';
import { useUpdateCredentials } from '../api/update-credentials';
import { credentialsPayload } from '../lib/credentials';
import type { CredentialEdit } from '../lib/credentials';

/** Write-only credentials: never shown, only replaced or cleared; an empty field leaves the value as it is. */
export function CredentialsForm() {
  const { ta, t } = useAdminT();
  const { i18n } = useTranslation();
  const credentials = useCredentials();
  const schemas = useConfigSchema();
  const save = useUpdateCredentials();
  const [edits, setEdits] = useState<Record<string, CredentialEdit>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});

  if (credentials.isLoading || schemas.isLoading) return <Loader size="sm" />;
  if (!credentials.data || !schemas.data)
    return (
      <LoadError
        error={credentials.error ?? schemas.error}
        onRetry={() => {
          if (!credentials.data) void credentials.refetch();
          if (!schemas.data) void schemas.refetch();
        }}
        retrying={credentials.isFetching || schemas.isFetching}
      />
    );
  const keys = Object.keys(schemas.data.credentials.properties ?? credentials.data);
  const stored = credentials.data as Record<string, CredentialsRead[keyof CredentialsRead]>;
  const edit = (key: string, patch: Partial<CredentialEdit>) =>
    setEdits((e) => ({ ...e, [key]: { value: '', clear: false, ...e[key], ...patch } }));

  const payload = credentialsPayload(edits);
  const handleSave = async () => {
    try {
      await save.mutateAsync(payload);
      setEdits({});
      setErrors({});
      notifySuccess(ta('common.saved'));
    } catch (error) {
      setErrors(serverIssuesToErrors(issuesOf(error), t, (k) => i18n.exists(k)));
    }
  };

  return (
    <Stack gap="md" maw={640}>
      <Text size="sm" c="dimmed">
        {ta('config.credentialsHint')}
      </Text>
      {keys.map((key) => {
        const isSet = stored[key] !== null && stored[key] !== undefined;
        const current = edits[key];
        return (
          <Group key={key} align="flex-end" gap="sm">
            <PasswordInput
              label={key}
              autoComplete="new-password"
              placeholder={isSet ? ta('config.secretSet') : ta('config.secretNotSet')}
              value={current?.value ?? ''}
              disabled={current?.clear}
              onChange={(e) => edit(key, { value: e.currentTarget.value })}
              error={errors[key]}
              style={{ flex: 1 }}
            />
            {isSet && (
              <Checkbox
                mb={8}
                label={ta('config.clearSecret')}
                checked={current?.clear ?? false}
                onChange={(e) => edit(key, { clear: e.currentTarget.checked })}
              />
            )}
          </Group>
        );
      })}
      <Group justify="flex-end">
        <Button
          onClick={() => void handleSave()}
          loading={save.isPending}
          disabled={Object.keys(payload).length === 0}
        >
          {ta('common.save')}
        </Button>
      </Group>
    </Stack>
  );
}
