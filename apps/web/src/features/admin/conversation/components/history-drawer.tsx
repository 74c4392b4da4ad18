import { Anchor, Drawer, Group, Loader, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { LoadError } from '../../../../components/load-error';
import { ConversationIdContext } from '../../../../components/messages/conversation-context';
import { MessageList } from '../../../../components/messages/message-list';
import { ModelBadge } from '../../../../components/model-display';
import { paths } from '../../../../config/paths';
import { getCurrentPath, groupMessages } from '../../../../lib/conversation/history';
import { useAdminT } from '../../shared/admin-i18n';
import { useConversationHistory } from '../api/get-conversation-history';

/** A conversation's history, read-only, in a side drawer. */
export function HistoryDrawer({
  conversationId,
  onClose,
}: {
  conversationId: string | null;
  onClose: () => void;
}) {
  const { ta, t } = useAdminT();
  const history = useConversationHistory(conversationId);
  const groups = useMemo(
    () =>
      history.data ? groupMessages(getCurrentPath(history.data.mapping, history.data.current_node)) : [],
    [history.data],
  );
  return (
    <Drawer
      opened={!!conversationId}
      onClose={onClose}
      position="right"
      size="min(900px, 100%)"
      title={history.data?.title || ta('conversation.history')}
    >
      <Stack gap="xs" h="calc(100dvh - 100px)">
        {history.data && (
          <Group gap="xs">
            <Text size="sm">{t(`sources.${history.data.source}`)}</Text>
            <ModelBadge model={history.data.current_model} />
            {conversationId && (
              <Anchor component={Link} to={paths.history(conversationId)} target="_blank" size="sm">
                {ta('conversation.openInNewTab')}
              </Anchor>
            )}
          </Group>
        )}
        {history.isLoading && <Loader size="sm" />}
        {history.error && (
          <LoadError
            error={history.error}
            onRetry={() => void history.refetch()}
            retrying={history.isFetching}
          />
        )}
        {history.data && (
          <div className="cc-chat" style={{ flex: 1, minHeight: 0 }} data-testid="admin-history">
            <ConversationIdContext.Provider value={conversationId}>
              <MessageList
                groups={groups}
                model={history.data.current_model}
                userMarkdown={false}
                resetKey={conversationId ?? ''}
              />
            </ConversationIdContext.Provider>
          </div>
        )}
      </Stack>
    </Drawer>
  );
}
