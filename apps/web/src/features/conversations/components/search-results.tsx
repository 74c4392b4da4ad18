import { Skeleton, Text, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { useMemo } from 'react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ConversationSearchHit } from '@cc/contracts';
import { ModelAvatar } from '../../../components/model-display';
import { formatRelative } from '../../../lib/format';
import { ROVING_ITEM_PROPS, rovingRowProps, useRovingList } from '../../../lib/use-roving-list';
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

/**
 * Search results of the conversation list: the conversation, a snippet with the matches marked, when. One Tab stop,
 * as the list: the arrows, Home and End move between the results, Enter opens one.
 */
export function SearchResults({ query, onOpen, disabled }: Props) {
  const { t } = useTranslation();
  const { data, isLoading, isError, refetch } = useConversationSearch(query);
  const ids = useMemo(() => (data ?? []).map(hitKey), [data]);
  const roving = useRovingList({ ids });

  let items: ReactNode;
  if (isLoading)
    items = [0, 1, 2].map((i) => (
      <li key={i}>
        <Skeleton h={44} my={4} />
      </li>
    ));
  else if (isError)
    items = (
      <li>
        <Text size="sm" c="red" data-testid="search-error">
          {t('conversations.searchFailed')}{' '}
          <UnstyledButton onClick={() => void refetch()} c="teal" fz="sm">
            {t('common.retry')}
          </UnstyledButton>
        </Text>
      </li>
    );
  else if (!data || data.length === 0)
    items = (
      <li>
        <Text size="sm" c="dimmed" ta="center" py="md" data-testid="search-empty">
          {t('conversations.searchEmpty', { query })}
        </Text>
      </li>
    );
  else
    items = data.map((hit) => (
      <SearchHit
        key={hitKey(hit)}
        hit={hit}
        tabStop={hitKey(hit) === roving.tabStopId}
        hintId={roving.hintId}
        disabled={disabled}
        onOpen={onOpen}
      />
    ));
  return (
    <>
      <VisuallyHidden id={roving.hintId}>{t('conversations.searchKeyboardHint')}</VisuallyHidden>
      <ul className="cc-conv-items" data-testid="search-results" {...roving.listProps}>
        {items}
      </ul>
    </>
  );
}

/** One result: opens its conversation at the message (or, for a title, at its latest message). */
function SearchHit({
  hit,
  tabStop,
  hintId,
  disabled,
  onOpen,
}: {
  hit: ConversationSearchHit;
  /** The result the list's single Tab stop is on. */
  tabStop: boolean;
  hintId: string;
  disabled: boolean;
  onOpen: Props['onOpen'];
}) {
  const { t, i18n } = useTranslation();
  const title = hit.title || t('conversations.untitled');
  const where =
    hit.message_id === null
      ? t('conversations.matchTitle')
      : hit.role === 'user'
        ? t('conversations.matchQuestion')
        : t('conversations.matchAnswer');
  return (
    <li className="cc-conv-item cc-search-hit" {...ROVING_ITEM_PROPS}>
      <UnstyledButton
        className="cc-conv-button cc-search-button"
        onClick={() => onOpen(hit.conversation_id, hit.message_id)}
        disabled={disabled}
        {...rovingRowProps(hitKey(hit), tabStop, hintId)}
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
}
