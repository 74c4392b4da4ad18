import { Alert, Skeleton, Stack, Text } from '@mantine/core';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate } from 'react-router';
import { SharedViewContext } from '../../../components/messages/conversation-context';
import { ConversationHeader } from '../../../components/messages/conversation-header';
import { MessageList } from '../../../components/messages/message-list';
import { paths } from '../../../config/paths';
import { ApiError } from '../../../lib/api-client';
import { groupMessages } from '../../../lib/conversation/history';
import { formatDateTime } from '../../../lib/format';
import { usePreference } from '../../../lib/preferences';
import { useSharedConversation } from '../api/get-shared-conversation';

/**
 * /share/{token}: a conversation someone shared, read-only and without logging in. Only its messages: no owner,
 * no other conversation; its images and attachments load through the link, which serves those files and no
 * other. A revoked link is a 404.
 */
export function SharedConversationView({ token }: { token: string }) {
  const { t, i18n } = useTranslation();
  const preference = usePreference();
  const { data, error, isLoading } = useSharedConversation(token);
  const groups = useMemo(() => (data ? groupMessages(data.messages) : []), [data]);
  if (error instanceof ApiError && (error.status === 404 || error.code === 404))
    return <Navigate to={paths.notFound} replace />;
  return (
    <SharedViewContext.Provider value={token}>
      <div className="cc-chat cc-history" data-testid="shared-conversation">
        {data && (
          <ConversationHeader
            title={data.title}
            source={data.source}
            model={data.current_model}
            actions={
              <Text size="xs" c="dimmed">
                {t('share.sharedAt', { time: formatDateTime(data.shared_at, i18n.language) })}
              </Text>
            }
          />
        )}
        {isLoading && (
          <Stack p="md" gap="lg">
            <Skeleton h={20} w="40%" />
            <Skeleton h={12} />
          </Stack>
        )}
        {error && !(error instanceof ApiError && error.status === 404) && (
          <Alert color="red" m="md" title={t('share.loadFailed')}>
            {error instanceof ApiError ? t(error.messageKey) : t('errors.requestError')}
          </Alert>
        )}
        {data && (
          <MessageList
            groups={groups}
            model={data.current_model}
            userMarkdown={preference.renderUserMessageInMd}
            resetKey={token}
            codeWrap={preference.codeAutoWrap}
          />
        )}
      </div>
    </SharedViewContext.Provider>
  );
}
