import { Button, Group, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useRenameConversation } from '../api/rename-conversation';

/** SPEC §5: the new title is not checked client-side. */
export function RenameForm({
  conversationId,
  initialTitle,
  onDone,
}: {
  conversationId: string;
  initialTitle: string;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [title, setTitle] = useState(initialTitle);
  const rename = useRenameConversation();
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate(
      { conversationId, title },
      {
        onSuccess: () => {
          notifications.show({ color: 'green', message: t('conversations.renamed'), autoClose: 3000 });
          onDone();
        },
      },
    );
  };
  return (
    <form onSubmit={handleSubmit}>
      <Stack>
        <TextInput
          label={t('conversations.newTitle')}
          value={title}
          onChange={(e) => setTitle(e.currentTarget.value)}
          data-autofocus
          data-testid="rename-input"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={rename.isPending}>
            {t('common.confirm')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
