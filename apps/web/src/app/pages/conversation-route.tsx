import '../../styles/mantine-all.css';
import { ActionIcon, Button, Drawer, EmptyState, Stack, Text } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import type { NewConversationForm } from '@cc/contracts';
import { ChatIcon, PlusIcon } from '../../components/icons';
import { DemoModeNotice } from '../../features/admin/system/components/demo-notice';
import { ChatPanel, StatusCard, openNewConversationModal } from '../../features/chat';
import type { ChatTarget } from '../../features/chat';
import { ConversationList, useConversationHistory } from '../../features/conversations';
import { focusMainContent } from '../../lib/focus';
import { usePreference } from '../../lib/preferences';

/** /conversation: the list (a drawer on narrow screens) and the chat. The selected id lives in `?id=`. */
export function ConversationRoute() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  // A draft whose first answer settled is its conversation from that render on: the address follows a moment later
  // (the router updates it in a transition), and in between the chat must not be shown without either.
  // Kept until the address changes (to it, or elsewhere: back, another conversation).
  const [started, setStarted] = useState<{ id: string; addressId: string | null } | null>(null);
  if (started && params.get('id') !== started.addressId) setStarted(null);
  const selectedId = started?.id ?? params.get('id');
  const focusMessageId = params.get('message');
  const [draft, setDraft] = useState<NewConversationForm | null>(null);
  const [busy, setBusy] = useState(false);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const narrow = useMediaQuery('(max-width: 48em)') ?? false;
  const preference = usePreference();
  const history = useConversationHistory(draft ? null : selectedId);

  // A choice made in the drawer (a phone) closes it, and the focus would go with it: it goes on to the message box
  // once the chosen conversation is shown and loaded (the box is disabled until then), to the main content meanwhile.
  // `id` is the chosen conversation (null: none), undefined for the open draft.
  const [focusChat, setFocusChat] = useState<{ id: string | null | undefined } | null>(null);
  const drawerBodyRef = useRef<HTMLDivElement>(null);
  const closeDrawerToChat = useCallback(
    (id?: string | null) => {
      if (drawerOpen) setFocusChat({ id });
      setDrawerOpen(false);
    },
    [drawerOpen],
  );
  const chatReady =
    focusChat !== null && (focusChat.id === undefined || (focusChat.id === selectedId && !history.isLoading));
  // The choice whose focus move is done (or given up: the user moved the focus meanwhile).
  const focusDone = useRef<typeof focusChat>(null);
  useEffect(() => {
    if (!focusChat || focusDone.current === focusChat) return;
    const active = document.activeElement;
    // Unless the user moved it meanwhile: it is still in the closing drawer, on the main content, or lost.
    const unmoved =
      !active ||
      active === document.body ||
      active.id === 'app-main' ||
      drawerBodyRef.current?.contains(active);
    if (unmoved && !chatReady) {
      document.getElementById('app-main')?.focus();
      return;
    }
    if (unmoved) focusMainContent();
    focusDone.current = focusChat;
  }, [focusChat, chatReady]);

  const select = useCallback(
    (conversationId: string | null) => {
      setDraft(null);
      setStarted(null);
      closeDrawerToChat(conversationId);
      setParams(conversationId ? { id: conversationId } : {}, { replace: false });
    },
    [setParams, closeDrawerToChat],
  );

  const openResult = useCallback(
    (conversationId: string, messageId: string | null) => {
      setDraft(null);
      setStarted(null);
      closeDrawerToChat(conversationId);
      setParams(messageId ? { id: conversationId, message: messageId } : { id: conversationId }, {
        replace: false,
      });
    },
    [setParams, closeDrawerToChat],
  );

  const handleNew = () => {
    openNewConversationModal((form) => {
      setDraft(form);
      setStarted(null);
      setDrawerOpen(false);
      if (selectedId) setParams({}, { replace: false });
    });
  };

  const handleStarted = useCallback(
    (conversationId: string) => {
      setDraft(null);
      setStarted({ id: conversationId, addressId: params.get('id') });
      setParams({ id: conversationId }, { replace: true });
    },
    [params, setParams],
  );

  const target: ChatTarget | null = draft
    ? { kind: 'draft', draft }
    : selectedId
      ? {
          kind: 'conversation',
          conversationId: selectedId,
          focusMessageId,
          history: history.data,
          loading: history.isLoading,
        }
      : null;

  const sidebar = (
    <Stack gap="sm" h="100%" p="sm" className="cc-sidebar-inner">
      <StatusCard />
      <Button
        leftSection={<PlusIcon size={16} />}
        onClick={handleNew}
        disabled={busy || !!draft}
        variant="light"
        fullWidth
        data-testid="new-conversation"
      >
        {t('chat.newConversation')}
      </Button>
      <ConversationList
        selectedId={draft ? null : selectedId}
        onSelect={select}
        onOpenResult={openResult}
        onDeleted={(id) => {
          if (id === selectedId) select(null);
        }}
        disabled={busy}
        draftTitle={draft ? (draft.title ?? '') : null}
        onOpenDraft={() => closeDrawerToChat()}
        onDiscardDraft={() => setDraft(null)}
      />
    </Stack>
  );

  const drawerButton = narrow ? (
    <ActionIcon
      variant="default"
      onClick={() => setDrawerOpen(true)}
      aria-label={t('conversations.openList')}
      data-testid="open-list"
    >
      <ChatIcon size={16} />
    </ActionIcon>
  ) : undefined;

  return (
    <div className={`cc-chat-page${preference.widerConversationPage ? '' : ' cc-chat-page-narrow'}`}>
      {narrow ? (
        <Drawer
          opened={drawerOpen}
          onClose={() => setDrawerOpen(false)}
          size={300}
          title={t('conversations.listLabel')}
          padding={0}
          // The title lines up with the list below it (the body has no padding of its own).
          styles={{ header: { paddingInline: 'var(--mantine-spacing-sm)' } }}
        >
          <div ref={drawerBodyRef} style={{ height: 'calc(100dvh - 60px)' }}>
            {sidebar}
          </div>
        </Drawer>
      ) : (
        <aside className="cc-sidebar hide-in-print" aria-label={t('conversations.listLabel')}>
          {sidebar}
        </aside>
      )}
      <section className="cc-chat-main">
        <DemoModeNotice />
        {target ? (
          <ChatPanel
            target={target}
            onConversationStarted={handleStarted}
            onBusyChange={setBusy}
            leading={drawerButton}
          />
        ) : (
          <div className="cc-chat-empty">
            {narrow && (
              <Button
                variant="default"
                mb="md"
                onClick={() => setDrawerOpen(true)}
                leftSection={<ChatIcon size={16} />}
              >
                {t('conversations.openList')}
              </Button>
            )}
            <EmptyState
              title={t('chat.emptyTitle')}
              description={t('chat.emptyDescription')}
              icon={<ChatIcon size={32} />}
            >
              <Button
                onClick={handleNew}
                leftSection={<PlusIcon size={16} />}
                data-testid="empty-new-conversation"
              >
                {t('chat.newConversation')}
              </Button>
            </EmptyState>
            <Text size="xs" c="dimmed" mt="md">
              {t('chat.emptyHint')}
            </Text>
          </div>
        )}
      </section>
    </div>
  );
}
