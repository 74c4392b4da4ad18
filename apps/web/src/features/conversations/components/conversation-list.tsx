import {
  ActionIcon,
  Button,
  CloseButton,
  Group,
  Menu,
  ScrollArea,
  Skeleton,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { memo, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { MouseEvent } from 'react';
import { flushSync } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { MODEL_DISPLAY } from '@cc/contracts';
import type { ConversationRead } from '@cc/contracts';
import type { TFunction } from 'i18next';
import {
  DotsIcon,
  DownloadIcon,
  MarkdownIcon,
  PencilIcon,
  PinIcon,
  ShareIcon,
  TrashIcon,
} from '../../../components/icons';
import { ModelAvatar, modelDisplay } from '../../../components/model-display';
import { focusAfterRemoval, fromMenu, openMenuButton, returnFocusTo } from '../../../lib/focus';
import { useLatest } from '../../../lib/use-latest';
import {
  ROVING_ACTION_PROPS,
  ROVING_ITEM_PROPS,
  rovingRowProps,
  useRovingList,
} from '../../../lib/use-roving-list';
import { useConversations } from '../api/get-conversations';
import { useDeleteConversation } from '../api/delete-conversation';
import { usePinConversation } from '../api/pin-conversation';
import { groupConversations } from '../lib/group-by-date';
import type { ConversationGroup } from '../lib/group-by-date';
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
  /** The draft's row was chosen (it is the open page already: on a phone, the list's drawer closes). */
  onOpenDraft?: () => void;
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
  const pin = usePinConversation();
  const title = conversation.title || t('conversations.untitled');
  const pinned = conversation.pinned_at !== null;

  // A refusal (at most 50 pinned) is reported by the API client (toast with the reason).
  const handlePin = () =>
    pin.mutate(
      { conversationId: conversation.conversation_id, pinned: !pinned },
      {
        onSuccess: () =>
          notifications.show({
            color: 'green',
            message: t(pinned ? 'conversations.unpinned' : 'conversations.pinned'),
            autoClose: 2000,
          }),
      },
    );

  const handleRename = () => {
    const id = `rename-${conversation.conversation_id}`;
    modals.open({
      modalId: id,
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
    const opener = openMenuButton();
    const refocus = focusAfterRemoval(opener, 'nav');
    modals.openConfirmModal({
      // The focus goes back to the row's menu button at once, and to the next row's once this one is deleted.
      ...returnFocusTo(opener),
      title: t('conversations.delete'),
      children: <Text size="sm">{t('conversations.deleteConfirm', { title })}</Text>,
      labels: { confirm: t('conversations.delete'), cancel: t('common.cancel') },
      confirmProps: { color: 'red', 'data-testid': 'confirm-delete' } as Record<string, string>,
      onConfirm: () =>
        remove.mutate(conversation.conversation_id, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t('conversations.deleted'), autoClose: 3000 });
            onDeleted(conversation.conversation_id);
            refocus();
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
          // Reached from its row (ArrowRight, Shift+F10), not by Tab: the list is a single Tab stop.
          {...ROVING_ACTION_PROPS}
          data-testid="conversation-menu"
        >
          <DotsIcon size={16} />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item leftSection={<PinIcon size={14} />} onClick={handlePin} data-testid="pin-item">
          {t(pinned ? 'conversations.unpin' : 'conversations.pin')}
        </Menu.Item>
        <Menu.Item leftSection={<PencilIcon size={14} />} onClick={fromMenu(handleRename)}>
          {t('conversations.rename')}
        </Menu.Item>
        <Menu.Item
          leftSection={<ShareIcon size={14} />}
          onClick={fromMenu(handleShare)}
          data-testid="share-item"
        >
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
        <Menu.Item leftSection={<TrashIcon size={14} />} c="red" onClick={fromMenu(handleDelete)}>
          {t('conversations.delete')}
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}

/** The draft's row id among the conversations' (theirs are UUIDs). */
const DRAFT_ROW = 'draft';
/** Wait after the last keystroke before searching. */
const SEARCH_DEBOUNCE_MS = 250;
/** How often the date sections are worked out again (a list left open past midnight moves on by itself). */
const REGROUP_MS = 60_000;

/** The current time, updated every `intervalMs`. */
function useNow(intervalMs: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const id = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  return now;
}

/** The model's display name and the source, for the row's icon (never a raw model id). */
function modelIconLabel(conversation: ConversationRead, t: TFunction): string {
  const model = conversation.current_model;
  const name = model && model in MODEL_DISPLAY ? modelDisplay(model).label : t('conversations.unknownModel');
  return t('conversations.modelIcon', { model: name, source: t(`sources.${conversation.source}`) });
}

function groupLabel(group: ConversationGroup, t: TFunction, language: string): string {
  const key = group.key;
  if (key.kind !== 'month') return t(`conversations.groups.${key.kind}`);
  return new Intl.DateTimeFormat(language, { year: 'numeric', month: 'long' }).format(
    new Date(key.year, key.month, 1),
  );
}

interface ItemProps {
  conversation: ConversationRead;
  active: boolean;
  /** The row the list's single Tab stop is on (roving tabindex). */
  tabStop: boolean;
  /** The keyboard hint's id (visually hidden), described by every row. */
  hintId: string;
  disabled: boolean;
  onSelect: (conversationId: string) => void;
  onDeleted: (conversationId: string) => void;
}

/** One row: model icon and title (opens it), and its menu. Memoised: a page loaded below leaves it alone. */
const ConversationItem = memo(function ConversationItem({
  conversation: c,
  active,
  tabStop,
  hintId,
  disabled,
  onSelect,
  onDeleted,
}: ItemProps) {
  const { t } = useTranslation();
  return (
    <li className="cc-conv-item" data-active={active || undefined} {...ROVING_ITEM_PROPS}>
      <UnstyledButton
        className="cc-conv-button"
        onClick={() => onSelect(c.conversation_id)}
        disabled={disabled}
        {...rovingRowProps(c.conversation_id, tabStop, hintId, 'menu')}
        aria-current={active ? 'page' : undefined}
        data-conversation-id={c.conversation_id}
        data-pinned={c.pinned_at !== null || undefined}
      >
        <ModelAvatar model={c.current_model} size={20} label={modelIconLabel(c, t)} />
        <Text size="sm" truncate component="span" dir="auto">
          {c.title || t('conversations.untitled')}
        </Text>
      </UnstyledButton>
      <ItemMenu conversation={c} onDeleted={onDeleted} disabled={disabled} />
    </li>
  );
});

/**
 * The user's conversations in sections (Pinned, Today, Yesterday, Previous 7 days, Previous 30 days, then by
 * month, in the browser's zone), a page at a time: the next page loads when the end of the list scrolls into view
 * (or with the "Load more" button). Each row has a menu (pin, rename, share, export, delete). While the search box
 * holds text the list shows the server's results (titles and message text, matches marked).
 */
export function ConversationList({
  selectedId,
  onSelect,
  onOpenResult,
  onDeleted,
  disabled,
  draftTitle,
  onOpenDraft,
  onDiscardDraft,
}: Props) {
  const { t, i18n } = useTranslation();
  const { conversations, isLoading, isError, refetch, hasNextPage, isFetchingNextPage, fetchNextPage } =
    useConversations();
  const [filter, setFilter] = useState('');
  const [debounced] = useDebouncedValue(filter.trim(), SEARCH_DEBOUNCE_MS);
  const searching = filter.trim().length > 0;
  // A draft (a new conversation not yet asked) is listed, untitled ('') or with its title.
  const hasDraft = draftTitle !== undefined && draftTitle !== null;
  const now = useNow(REGROUP_MS);
  const groups = useMemo(() => groupConversations(conversations, now), [conversations, now]);
  const idPrefix = useId();

  // Stable callbacks for the memoised rows, whatever the page passes.
  const onSelectRef = useLatest(onSelect);
  const onDeletedRef = useLatest(onDeleted);
  const handleSelect = useCallback((id: string) => onSelectRef.current(id), [onSelectRef]);
  const handleDeleted = useCallback((id: string) => onDeletedRef.current(id), [onDeletedRef]);

  const viewportRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const loadMore = useLatest(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  });
  // The list is one Tab stop: the draft's row and the conversations' (the draft, when there is one, is the open page).
  const rowIds = useMemo(
    () => [...(hasDraft ? [DRAFT_ROW] : []), ...groups.flatMap((g) => g.items.map((c) => c.conversation_id))],
    [hasDraft, groups],
  );
  const roving = useRovingList({
    ids: rowIds,
    currentId: hasDraft ? DRAFT_ROW : selectedId,
    onPastEnd: () => loadMore.current(),
  });
  const { tabStopId, hintId } = roving;
  // Discarded from its ✕ (by keyboard, the focus was there): the focus goes to the list's first row, not the page.
  const handleDiscard = (e: MouseEvent<HTMLElement>) => {
    const list = e.currentTarget.closest('nav');
    flushSync(() => onDiscardDraft?.());
    list?.querySelector<HTMLElement>('[tabindex="0"]')?.focus();
  };
  // Load the next page once the end of the list is near the viewport; observed again after each page, so a page
  // that does not fill the viewport is followed by the next.
  const loaded = conversations.length;
  useEffect(() => {
    const end = endRef.current;
    if (!end || !hasNextPage || searching || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) loadMore.current();
      },
      { root: viewportRef.current, rootMargin: '0px 0px 400px 0px' },
    );
    observer.observe(end);
    return () => observer.disconnect();
  }, [hasNextPage, searching, loaded, loadMore]);

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
          ref={searchRef}
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          rightSection={
            filter ? (
              <CloseButton
                size="xs"
                onClick={() => {
                  setFilter('');
                  // The button goes with the text: the focus stays in the search box.
                  searchRef.current?.focus();
                }}
                aria-label={t('common.clear')}
              />
            ) : null
          }
        />
        <TransferMenu onImported={onSelect} />
      </Group>
      <ScrollArea style={{ flex: 1 }} type="auto" offsetScrollbars viewportRef={viewportRef}>
        {searching ? (
          <section aria-label={t('conversations.searchResults')}>
            {debounced ? <SearchResults query={debounced} onOpen={onOpenResult} disabled={disabled} /> : null}
          </section>
        ) : (
          <nav
            aria-label={t('conversations.listLabel')}
            data-testid="conversation-list"
            {...roving.listProps}
          >
            <VisuallyHidden id={hintId}>{t('conversations.keyboardHint')}</VisuallyHidden>
            <ul className="cc-conv-items">
              {hasDraft && (
                <li
                  className="cc-conv-item"
                  data-active="true"
                  data-testid="draft-item"
                  {...ROVING_ITEM_PROPS}
                >
                  <UnstyledButton
                    className="cc-conv-button"
                    onClick={onOpenDraft}
                    disabled={disabled}
                    aria-current="page"
                    {...rovingRowProps(
                      DRAFT_ROW,
                      tabStopId === DRAFT_ROW,
                      hintId,
                      onDiscardDraft && !disabled ? 'button' : 'none',
                    )}
                  >
                    <Text size="sm" truncate fs="italic" component="span" dir="auto">
                      {draftTitle || t('chat.newConversation')}
                    </Text>
                  </UnstyledButton>
                  {onDiscardDraft && !disabled && (
                    <CloseButton
                      size="sm"
                      onClick={handleDiscard}
                      aria-label={t('chat.discardDraft')}
                      {...ROVING_ACTION_PROPS}
                    />
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
              {!isLoading && !isError && conversations.length === 0 && !hasDraft && (
                <li>
                  <Text size="sm" c="dimmed" ta="center" py="md">
                    {t('conversations.empty')}
                  </Text>
                </li>
              )}
            </ul>
            {groups.map((group) => {
              const headingId = `${idPrefix}-${group.id}`;
              return (
                <section
                  key={group.id}
                  aria-labelledby={headingId}
                  className="cc-conv-group"
                  data-group={group.id}
                >
                  <Text
                    component="h2"
                    id={headingId}
                    className="cc-conv-group-title"
                    size="xs"
                    fw={600}
                    c="dimmed"
                  >
                    {groupLabel(group, t, i18n.language)}
                  </Text>
                  <ul className="cc-conv-items">
                    {group.items.map((c) => (
                      <ConversationItem
                        key={c.conversation_id}
                        conversation={c}
                        active={c.conversation_id === selectedId}
                        tabStop={c.conversation_id === tabStopId}
                        hintId={hintId}
                        disabled={disabled}
                        onSelect={handleSelect}
                        onDeleted={handleDeleted}
                      />
                    ))}
                  </ul>
                </section>
              );
            })}
            {hasNextPage && (
              <div ref={endRef} className="cc-conv-more">
                {/* For the mouse. Not a Tab stop of its own: the next page loads when the end of the list scrolls
                    into view, and ArrowDown on the last row loads it. */}
                <Button
                  variant="subtle"
                  size="xs"
                  fullWidth
                  onClick={() => loadMore.current()}
                  loading={isFetchingNextPage}
                  tabIndex={-1}
                  data-testid="load-more-conversations"
                >
                  {t('conversations.loadMore')}
                </Button>
              </div>
            )}
          </nav>
        )}
      </ScrollArea>
    </Stack>
  );
}
