import { Skeleton, Text, UnstyledButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ConversationSearchHit } from '@cc/contracts';
import { ModelAvatar } from '../../../components/model-display';
import { formatRelative } from '../../../lib/format';
import { useConversationSearch } from '../api/search-conversations';
import { HighlightedSnippet } from './highlighted-snippet';

interface Props {
  /** The query, already debounced and trimmed (non-empty). */
  query: string;
  onOpen: (conversationId: string, messageId: string | null) => void;
  disabled: boolean;
}

function hitKey(hit: ConversationSearchHit): string {
  return `${hit.conversation_id}:${hit.message_id ?? 'title'}`;
}

/** Search results of the conversation list: the conversation, a snippet with the matches marked, when. */
export function SearchResults({ query, onOpen, disabled }: Props) {
  const { t, i18n } = useTranslation();
  const { data, isLoading, isError, refetch } = useConversationSearch(query);

  if (isLoading)
    return [0, 1, 2].map((i) => (
      <li key={i}>
        <Skeleton h={44} my={4} />
      </li>
    ));
  if (isError)
    return (
      <li>
        <Text size="sm" c="red" data-testid="search-error">
          {t('conversations.searchFailed')}{' '}
          <UnstyledButton onClick={() => void refetch()} c="teal" fz="sm">
            {t('common.retry')}
          </UnstyledButton>
        </Text>
      </li>
    );
  if (!data || data.length === 0)
    return (
      <li>
        <Text size="sm" c="dimmed" ta="center" py="md" data-testid="search-empty">
          {t('conversations.searchEmpty', { query })}
        </Text>
      </li>
    );
  return data.map((hit) => {
    const title = hit.title || t('conversations.untitled');
    const where =
      hit.message_id === null
        ? t('conversations.matchTitle')
        : hit.role === 'user'
          ? t('conversations.matchQuestion')
          : t('conversations.matchAnswer');
    return (
      <li key={hitKey(hit)} className="cc-conv-item cc-search-hit">
        <UnstyledButton
          className="cc-conv-button cc-search-button"
          onClick={() => onOpen(hit.conversation_id, hit.message_id)}
          disabled={disabled}
          data-testid="search-result"
          data-message-id={hit.message_id ?? undefined}
        >
          <ModelAvatar model={hit.model} size={20} />
          <span className="cc-search-text">
            <Text size="sm" truncate component="span" fw={500} display="block" dir="auto">
              {title}
            </Text>
            <Text size="xs" c="dimmed" component="span" className="cc-search-snippet">
              {where} ·{' '}
              {/* The matched text keeps its own direction (an Arabic snippet reads right to left). */}
              <span dir="auto">
                <HighlightedSnippet text={hit.snippet} ranges={hit.highlights} />
              </span>
            </Text>
            <Text size="xs" c="dimmed" component="span" display="block">
              {formatRelative(hit.time, i18n.language)}
            </Text>
          </span>
        </UnstyledButton>
      </li>
    );
  });
}
