import { ActionIcon, Menu } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { IMPORT_MAX_BYTES } from '@cc/contracts';
import { DotsIcon, DownloadIcon, ShareIcon, UploadIcon } from '../../../components/icons';
import { describeRequestError } from '../../../lib/errors';
import { formatBytes } from '../../../lib/format';
import { ImportFileError, exportAllConversations, useImportConversation } from '../api/transfer';
import { ShareLinks } from './share-links';

/** The list's own menu: export every conversation, import one from a JSON export, the user's share links. */
export function TransferMenu({ onImported }: { onImported: (conversationId: string) => void }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const importing = useImportConversation();

  const handleFile = (file: File | undefined) => {
    if (!file) return;
    importing.mutate(file, {
      onSuccess: (conversation) => {
        notifications.show({ color: 'green', message: t('transfer.imported'), autoClose: 3000 });
        onImported(conversation.conversation_id);
      },
      onError: (error) => {
        const described = describeRequestError(error, t);
        const message =
          error instanceof ImportFileError
            ? error.reason === 'tooLarge'
              ? t('transfer.tooLarge', { max: formatBytes(IMPORT_MAX_BYTES) })
              : t('transfer.notJson')
            : described.message
              ? t('common.labelled', { label: described.title, text: described.message })
              : described.title;
        notifications.show({ color: 'red', title: t('transfer.importFailed'), message });
      },
    });
  };

  return (
    <>
      <input
        ref={input}
        type="file"
        accept="application/json,.json"
        hidden
        data-testid="import-input"
        onChange={(e) => {
          handleFile(e.currentTarget.files?.[0]);
          e.currentTarget.value = '';
        }}
      />
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <ActionIcon
            variant="subtle"
            color="gray"
            aria-label={t('transfer.menu')}
            loading={importing.isPending}
            data-testid="transfer-menu"
          >
            <DotsIcon size={16} />
          </ActionIcon>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item
            leftSection={<DownloadIcon size={14} />}
            onClick={() => void exportAllConversations().catch(() => undefined)}
          >
            {t('transfer.exportAll')}
          </Menu.Item>
          <Menu.Item
            leftSection={<UploadIcon size={14} />}
            onClick={() => input.current?.click()}
            data-testid="import-item"
          >
            {t('transfer.import')}
          </Menu.Item>
          <Menu.Item
            leftSection={<ShareIcon size={14} />}
            onClick={() => modals.open({ title: t('share.myLinks'), size: 'lg', children: <ShareLinks /> })}
          >
            {t('share.myLinks')}
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
    </>
  );
}
