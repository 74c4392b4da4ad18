import { Alert, Skeleton, Stack } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router';
import { ConversationIdParams } from '@cc/contracts';
import { ConversationIdContext } from '../../../components/messages/conversation-context';
import { ConversationHeader } from '../../../components/messages/conversation-header';
import { ExportActions } from '../../../components/messages/export-actions';
import { MessageList } from '../../../components/messages/message-list';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { getCurrentPath, groupMessages } from '../../../lib/conversation/history';
import { usePreference } from '../../../lib/preferences';
import { useConversationHistory } from '../api/get-conversation';

/**
 * /conv/{id}: the read-only history of a conversation, with export. A missing one, or an address whose id is not a
 * conversation id at all, goes to the 404 page.
 */
export function HistoryViewer({ conversationId }: { conversationId: string }) {
  const { t } = useTranslation();
  const preference = usePreference();
  const wellFormed = ConversationIdParams.safeParse({ conversation_id: conversationId }).success;
  const {
    data: history,
    error,
    isLoading,
  } = useConversationHistory(wellFormed ? conversationId : null, {
    silent: true,
  });
  const groups = useMemo(
    () => (history ? groupMessages(getCurrentPath(history.mapping, history.current_node)) : []),
    [history],
  );
  if (!wellFormed || (error instanceof ApiError && (error.status === 404 || error.code === 404)))
    return <Navigate to={paths.notFound} replace />;
  return (
    <ConversationIdContext.Provider value={conversationId}>
      <div
        className={`cc-chat cc-history${preference.widerConversationPage ? '' : ' cc-chat-narrow'}`}
        data-testid="history-viewer"
      >
        {history && (
          <ConversationHeader
            title={history.title}
            source={history.source}
            model={history.current_model}
            pluginIds={history.metadata?.plugin_ids}
            actions={<ExportActions history={history} userMarkdown={preference.renderUserMessageInMd} />}
          />
        )}
        {isLoading && (
          <Stack p="md" gap="lg">
            <Skeleton h={20} w="40%" />
            <Skeleton h={12} />
            <Skeleton h={12} w="70%" />
          </Stack>
        )}
        {error && !(error instanceof ApiError && error.status === 404) && (
          <Alert color="red" m="md" title={t('conversations.historyLoadFailed')}>
            {error instanceof ApiError ? t(error.messageKey) : t('errors.requestError')}
          </Alert>
        )}
        {history?.from_cache && (
          <Alert color="yellow" mx="md" mt="xs" py={4}>
            {t('conversations.fromCache')}
          </Alert>
        )}
        {history && (
          <MessageList
            groups={groups}
            model={history.current_model}
            userMarkdown={preference.renderUserMessageInMd}
            resetKey={conversationId}
            codeWrap={preference.codeAutoWrap}
          />
        )}
      </div>
    </ConversationIdContext.Provider>
  );
}
