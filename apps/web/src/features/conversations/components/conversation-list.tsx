import {
  ActionIcon,
  CloseButton,
  Group,
  Menu,
  ScrollArea,
  Skeleton,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationRead } from '@cc/contracts';
import {
  DotsIcon,
  DownloadIcon,
  MarkdownIcon,
  PencilIcon,
  ShareIcon,
  TrashIcon,
} from '../../../components/icons';
import { ModelAvatar } from '../../../components/model-display';
import { useConversations } from '../api/get-conversations';
import { useDeleteConversation } from '../api/delete-conversation';
import { exportConversation } from '../api/transfer';
import { RenameForm } from './rename-form';
import { SearchResults } from './search-results';
import { ShareLinks } from './share-links';
import { TransferMenu } from './transfer-menu';

interface Props {
  selectedId: string | null;
  onSelect: (conversationId: string) => void;
  /** A search result was chosen: the conversation, and the message to show (null for a title match). */
  onOpenResult: (conversationId: string, messageId: string | null) => void;
  /** A conversation was deleted (the page clears its selection if it was this one). */
  onDeleted: (conversationId: string) => void;
  /** Locked while an answer streams. */
  disabled: boolean;
  /** The unsent new conversation, shown first. */
  draftTitle?: string | null;
  onDiscardDraft?: () => void;
}

function ItemMenu({
  conversation,
  onDeleted,
  disabled,
}: {
  conversation: ConversationRead;
  onDeleted: (id: string) => void;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const remove = useDeleteConversation();
  const title = conversation.title || t('conversations.untitled');

  const handleRename = () => {
    const id = modals.open({
      title: t('conversations.rename'),
      children: (
        <RenameForm
          conversationId={conversation.conversation_id}
          initialTitle={conversation.title ?? ''}
          onDone={() => modals.close(id)}
        />
      ),
    });
  };

  const handleShare = () => {
    modals.open({
      title: t('share.title', { title }),
      size: 'lg',
      children: <ShareLinks conversationId={conversation.conversation_id} />,
    });
  };
  // A failure is reported by the API client (toast).
  const handleExport = (format: 'json' | 'md') =>
    void exportConversation(conversation.conversation_id, format).catch(() => undefined);

  const handleDelete = () => {
    modals.openConfirmModal({
      title: t('conversations.delete'),
      children: <Text size="sm">{t('conversations.deleteConfirm', { title })}</Text>,
      labels: { confirm: t('conversations.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red', 'data-testid': 'confirm-delete' } as Record<string, string>,
      onConfirm: () =>
        remove.mutate(conversation.conversation_id, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t('conversations.deleted'), autoClose: 3000 });
            onDeleted(conversation.conversation_id);
          },
        }),
    });
  };

  return (
    <Menu position="bottom-end" withinPortal disabled={disabled}>
      <Menu.Target>
        <ActionIcon
          variant="subtle"
          color="gray"
          size="sm"
          aria-label={t('conversations.actions', { title })}
          onClick={(e) => e.stopPropagation()}
          disabled={disabled}
          data-testid="conversation-menu"
        >
          <DotsIcon size={16} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<PencilIcon size={14} />} onClick={handleRename}>
          {t('conversations.rename')}
        </Menu.Item>
        <Menu.Item leftSection={<ShareIcon size={14} />} onClick={handleShare} data-testid="share-item">
          {t('share.menu')}
        </Menu.Item>
        <Menu.Item
          leftSection={<DownloadIcon size={14} />}
          onClick={() => handleExport('json')}
          data-testid="export-json-item"
        >
          {t('transfer.exportJson')}
        </Menu.Item>
        <Menu.Item leftSection={<MarkdownIcon size={14} />} onClick={() => handleExport('md')}>
          {t('transfer.exportMarkdown')}
        </Menu.Item>
        <Menu.Item leftSection={<TrashIcon size={14} />} c="red" onClick={handleDelete}>
          {t('conversations.delete')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** Wait after the last keystroke before searching. */
const SEARCH_DEBOUNCE_MS = 250;

/**
 * The user's conversations, most recent first, with a rename/delete menu per item, and a search box: while it holds
 * text the list shows the server's results (titles and message text, matches marked).
 */
export function ConversationList({
  selectedId,
  onSelect,
  onOpenResult,
  onDeleted,
  disabled,
  draftTitle,
  onDiscardDraft,
}: Props) {
  const { t } = useTranslation();
  const { data, isLoading, isError, refetch } = useConversations();
  const [filter, setFilter] = useState('');
  const [debounced] = useDebouncedValue(filter.trim(), SEARCH_DEBOUNCE_MS);
  const searching = filter.trim().length > 0;
  const shown = data ?? [];

  return (
    <Stack gap="xs" className="cc-conv-list" mih={0} style={{ flex: 1 }}>
      <Group gap={4} wrap="nowrap">
        <TextInput
          style={{ flex: 1 }}
          size="xs"
          type="search"
          maxLength={200}
          placeholder={t('conversations.search')}
          aria-label={t('conversations.search')}
          data-testid="conversation-search"
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          rightSection={
            filter ? (
              <CloseButton size="xs" onClick={() => setFilter('')} aria-label={t('common.clear')} />
            ) : null
          }
        />
        <TransferMenu onImported={onSelect} />
      </Group>
      <ScrollArea style={{ flex: 1 }} type="auto" offsetScrollbars>
        {searching ? (
          <section aria-label={t('conversations.searchResults')}>
            <ul className="cc-conv-items" data-testid="search-results">
              {debounced ? (
                <SearchResults query={debounced} onOpen={onOpenResult} disabled={disabled} />
              ) : null}
            </ul>
          </section>
        ) : (
          <nav aria-label={t('conversations.listLabel')}>
            <ul className="cc-conv-items" data-testid="conversation-list">
              {draftTitle !== undefined && draftTitle !== null && (
                <li className="cc-conv-item" data-active="true" data-testid="draft-item">
                  <div className="cc-conv-button">
                    <Text size="sm" truncate fs="italic">
                      {draftTitle || t('chat.newConversation')}
                    </Text>
                  </div>
                  {onDiscardDraft && !disabled && (
                    <CloseButton size="sm" onClick={onDiscardDraft} aria-label={t('chat.discardDraft')} />
                  )}
                </li>
              )}
              {isLoading &&
                [0, 1, 2, 3].map((i) => (
                  <li key={i}>
                    <Skeleton h={28} my={4} />
                  </li>
                ))}
              {isError && (
                <li>
                  <Text size="sm" c="red">
                    {t('conversations.loadFailed')}{' '}
                    <UnstyledButton onClick={() => void refetch()} c="teal" fz="sm">
                      {t('common.retry')}
                    </UnstyledButton>
                  </Text>
                </li>
              )}
              {!isLoading && !isError && shown.length === 0 && !draftTitle && (
                <li>
                  <Text size="sm" c="dimmed" ta="center" py="md">
                    {t('conversations.empty')}
                  </Text>
                </li>
              )}
              {shown.map((c) => {
                const active = c.conversation_id === selectedId;
                return (
                  <li key={c.conversation_id} className="cc-conv-item" data-active={active || undefined}>
                    <UnstyledButton
                      className="cc-conv-button"
                      onClick={() => onSelect(c.conversation_id)}
                      disabled={disabled}
                      aria-current={active ? 'page' : undefined}
                      data-conversation-id={c.conversation_id}
                    >
                      <ModelAvatar model={c.current_model} size={20} />
                      <Text size="sm" truncate component="span">
                        {c.title || t('conversations.untitled')}
                      </Text>
                    </UnstyledButton>
                    <ItemMenu conversation={c} onDeleted={onDeleted} disabled={disabled} />
                  </li>
                );
              })}
            </ul>
          </nav>
        )}
      </ScrollArea>
    </Stack>
  );
}
