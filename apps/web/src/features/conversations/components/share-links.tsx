import { ActionIcon, Button, CopyButton, Group, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CheckIcon, CopyIcon, TrashIcon } from '../../../components/icons';
import { paths } from '../../../config/paths';
import { formatDateTime } from '../../../lib/format';
import { shareUrl, useCreateShare, useOwnShares, useRevokeShare } from '../api/shares';

/**
 * Share links: with a conversation, makes a new link to it as it is now and lists that conversation's links;
 * without one, lists every link of the user's. Each working link can be revoked.
 */
export function ShareLinks({ conversationId }: { conversationId?: string }) {
  const { t, i18n } = useTranslation();
  const shares = useOwnShares();
  const create = useCreateShare();
  const revoke = useRevokeShare();
  const [created, setCreated] = useState<string | null>(null);
  const rows = (shares.data ?? []).filter((s) => !conversationId || s.conversation_id === conversationId);

  const handleCreate = () => {
    if (!conversationId) return;
    create.mutate(conversationId, {
      onSuccess: (share) => {
        setCreated(shareUrl(paths.share(share.token)));
        void shares.refetch();
      },
    });
  };

  return (
    <Stack gap="sm">
      {conversationId && (
        <>
          <Text size="sm" c="dimmed">
            {t('share.hint')}
          </Text>
          <Group>
            <Button onClick={handleCreate} loading={create.isPending} data-testid="share-create">
              {t('share.create')}
            </Button>
          </Group>
        </>
      )}
      {created && (
        <TextInput
          readOnly
          value={created}
          label={t('share.link')}
          data-testid="share-url"
          onFocus={(e) => e.currentTarget.select()}
          rightSection={
            <CopyButton value={created}>
              {({ copied, copy }) => (
                <Tooltip label={copied ? t('share.copied') : t('share.copy')}>
                  <ActionIcon variant="subtle" onClick={copy} aria-label={t('share.copy')}>
                    {copied ? <CheckIcon size={16} /> : <CopyIcon size={16} />}
                  </ActionIcon>
                </Tooltip>
              )}
            </CopyButton>
          }
        />
      )}
      {rows.length === 0 ? (
        <Text size="sm" c="dimmed">
          {shares.isLoading ? t('share.loading') : t('share.none')}
        </Text>
      ) : (
        <Table data-testid="share-list">
          <Table.Thead>
            <Table.Tr>
              {!conversationId && <Table.Th>{t('share.conversation')}</Table.Th>}
              <Table.Th>{t('share.createdAt')}</Table.Th>
              <Table.Th>{t('share.status')}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((s) => (
              <Table.Tr key={s.id} data-testid="share-row">
                {!conversationId && <Table.Td>{s.title || t('conversations.untitled')}</Table.Td>}
                <Table.Td>{formatDateTime(s.created_at, i18n.language)}</Table.Td>
                <Table.Td>{s.revoked_at ? t('share.revoked') : t('share.active')}</Table.Td>
                <Table.Td>
                  {!s.revoked_at && (
                    <Tooltip label={t('share.revoke')}>
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label={t('share.revoke')}
                        loading={revoke.isPending && revoke.variables === s.id}
                        data-testid="share-revoke"
                        onClick={() =>
                          revoke.mutate(s.id, {
                            onSuccess: () => {
                              notifications.show({ color: 'green', message: t('share.revokedToast') });
                              void shares.refetch();
                            },
                          })
                        }
                      >
                        <TrashIcon size={16} />
                      </ActionIcon>
                    </Tooltip>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
