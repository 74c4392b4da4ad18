import {
  ActionIcon,
  Badge,
  Button,
  Checkbox,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { useMemo, useState } from 'react';
import { INVITE_MAX_HOURS } from '@cc/contracts';
import type { InviteRead } from '@cc/contracts';
import { CheckIcon, CopyIcon } from '../../../components/icons';
import { paths } from '../../../config/paths';
import { formatDateTime } from '../../../lib/format';
import { useGroups } from '../user/api/groups';
import { useAdminT } from '../shared/admin-i18n';
import { AdminPage } from '../shared/admin-page';
import { confirmAction } from '../shared/confirm';
import { DataTable } from '../shared/data-table';
import type { Column } from '../shared/data-table';
import { notifySuccess } from '../shared/notify';
import { RefreshButton } from '../shared/refresh-button';
import { useCreateInvite, useInvites, useRevokeInvite } from './api/invites';

const NO_GROUP = 'none';

/** /admin/invite: links that let people create their own account (expiry, uses, group); made, listed, revoked. */
export function InvitePage() {
  const { ta, t, language } = useAdminT();
  const invites = useInvites();
  const groups = useGroups();
  const create = useCreateInvite();
  const revoke = useRevokeInvite();
  const [hours, setHours] = useState<number | string>(72);
  const [uses, setUses] = useState<number | string>(1);
  const [unlimited, setUnlimited] = useState(false);
  const [group, setGroup] = useState<string>(NO_GROUP);
  const [created, setCreated] = useState<string | null>(null);

  const handleCreate = () => {
    const expires = Number(hours);
    const max = Number(uses);
    if (!Number.isInteger(expires) || expires < 1 || expires > INVITE_MAX_HOURS) return;
    if (!unlimited && (!Number.isInteger(max) || max < 1)) return;
    create.mutate(
      {
        expires_in_hours: expires,
        max_uses: unlimited ? null : max,
        group_id: group === NO_GROUP ? null : Number(group),
      },
      {
        onSuccess: (invite) => {
          setCreated(`${window.location.origin}${paths.invite(invite.token)}`);
          notifySuccess(ta('invite.created'));
        },
      },
    );
  };

  const handleRevoke = async (invite: InviteRead) => {
    const ok = await confirmAction({
      title: ta('invite.revokeTitle'),
      body: ta('invite.revokeBody'),
      confirmLabel: ta('invite.revoke'),
      cancelLabel: ta('common.cancel'),
      danger: true,
    });
    if (ok) revoke.mutate(invite.id, { onSuccess: () => notifySuccess(ta('invite.revoked')) });
  };

  const columns = useMemo<Column<InviteRead>[]>(
    () => [
      {
        key: 'created_at',
        header: ta('invite.columns.createdAt'),
        render: (i) => formatDateTime(i.created_at, language),
        sort: (a, b) => a.created_at.localeCompare(b.created_at),
      },
      { key: 'created_by', header: ta('invite.columns.createdBy'), render: (i) => i.created_by ?? '—' },
      {
        key: 'expires_at',
        header: ta('invite.columns.expiresAt'),
        render: (i) => formatDateTime(i.expires_at, language),
        sort: (a, b) => a.expires_at.localeCompare(b.expires_at),
      },
      {
        key: 'uses',
        header: ta('invite.columns.uses'),
        render: (i) => `${i.uses} / ${i.max_uses ?? '∞'}`,
      },
      { key: 'group', header: ta('invite.columns.group'), render: (i) => i.group_name ?? '—' },
      {
        key: 'status',
        header: ta('invite.columns.status'),
        render: (i) => (
          <Badge color={i.usable ? 'green' : 'gray'} variant="light">
            {i.revoked_at
              ? ta('invite.status.revoked')
              : i.usable
                ? ta('invite.status.usable')
                : ta('invite.status.ended')}
          </Badge>
        ),
      },
      {
        key: 'actions',
        header: ta('invite.columns.actions'),
        sticky: true,
        render: (i) =>
          i.revoked_at ? null : (
            <Button size="xs" variant="subtle" color="red" onClick={() => void handleRevoke(i)}>
              {ta('invite.revoke')}
            </Button>
          ),
      },
    ],
    // eslint-disable-next-line react-hooks/exhaustive-deps -- handleRevoke only reads stable hooks
    [ta, language],
  );

  return (
    <AdminPage title={t('admin.inviteTitle')} actions={<RefreshButton query={invites} />}>
      <Text size="sm" c="dimmed">
        {ta('invite.hint')}
      </Text>
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Group align="flex-end" wrap="wrap">
            <NumberInput
              label={ta('invite.form.hours')}
              min={1}
              max={INVITE_MAX_HOURS}
              value={hours}
              onChange={setHours}
              w={180}
            />
            <NumberInput
              label={ta('invite.form.maxUses')}
              min={1}
              value={unlimited ? '' : uses}
              onChange={setUses}
              disabled={unlimited}
              w={160}
            />
            <Checkbox
              label={ta('invite.form.unlimited')}
              checked={unlimited}
              onChange={(e) => setUnlimited(e.currentTarget.checked)}
              mb={8}
            />
            <Select
              label={ta('invite.form.group')}
              data={[
                { value: NO_GROUP, label: ta('user.groups.noGroup') },
                ...(groups.data ?? []).map((g) => ({ value: String(g.id), label: g.name })),
              ]}
              value={group}
              onChange={(v) => setGroup(v ?? NO_GROUP)}
              allowDeselect={false}
              w={200}
            />
            <Button onClick={handleCreate} loading={create.isPending}>
              {ta('invite.create')}
            </Button>
          </Group>
          {created && (
            <TextInput
              readOnly
              value={created}
              label={ta('invite.link')}
              description={ta('invite.linkOnce')}
              data-testid="invite-url"
              onFocus={(e) => e.currentTarget.select()}
              rightSection={
                <CopyButton value={created}>
                  {({ copied, copy }) => (
                    <Tooltip label={copied ? ta('invite.copied') : ta('invite.copy')}>
                      <ActionIcon variant="subtle" onClick={copy} aria-label={ta('invite.copy')}>
                        {copied ? <CheckIcon size={16} /> : <CopyIcon size={16} />}
                      </ActionIcon>
                    </Tooltip>
                  )}
                </CopyButton>
              }
            />
          )}
        </Stack>
      </Paper>
      <DataTable
        label={t('admin.inviteTitle')}
        rows={invites.data ?? []}
        columns={columns}
        rowId={(i) => i.id}
        defaultSort={{ key: 'created_at', desc: true }}
        minWidth={900}
        empty={invites.isLoading ? ta('common.loading') : ta('invite.empty')}
        error={invites.error}
        onRetry={() => void invites.refetch()}
        retrying={invites.isFetching}
      />
    </AdminPage>
  );
}
