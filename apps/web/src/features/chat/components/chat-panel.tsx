import { Alert, Button, Group, Loader, Skeleton, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useEffectEvent, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { AskRequestInput, ChatSource, ConversationHistory, NewConversationForm } from '@cc/contracts';
import { ContinueIcon } from '../../../components/icons';
import { ConversationIdContext } from '../../../components/messages/conversation-context';
import { ConversationHeader } from '../../../components/messages/conversation-header';
import { ExportActions } from '../../../components/messages/export-actions';
import { MessageActionsContext } from '../../../components/messages/message-actions';
import type { MessageActions } from '../../../components/messages/message-actions';
import { MessageList } from '../../../components/messages/message-list';
import { apiPaths } from '../../../config/paths';
import { reportUnauthorized } from '../../../lib/api-client';
import { leafOf, siblingsOf } from '../../../lib/conversation/branches';
import { canContinue, getCurrentPath, groupMessages, textOf } from '../../../lib/conversation/history';
import { mergeAskIntoHistory } from '../../../lib/conversation/merge';
import { usePreference } from '../../../lib/preferences';
import { remainingForModel } from '../../../lib/quota';
import { queryKeys } from '../../../lib/query-keys';
import { useUser } from '../../../lib/session';
import { useLatest } from '../../../lib/use-latest';
import { generateTitle } from '../api/generate-title';
import { setCurrentNode } from '../api/set-current-node';
import { useAsk } from '../hooks/use-ask';
import { useUploads } from '../hooks/use-uploads';
import { askBranchPoint, withAnswer } from '../lib/ask-path';
import {
  askFailureRawDetail,
  canRetryAsk,
  describeAskFailure,
  isServerMessage,
  isSessionExpired,
} from '../lib/ask-session';
import type { AskState } from '../lib/ask-session';
import { WEB_CONTINUE_TEXT, buildAskRequest, makeTempUserMessage } from '../lib/build-request';
import type { AskTarget } from '../lib/build-request';
import { canUpload, groupRejections, toAskFiles, uploadPermissions } from '../lib/uploads';
import type { AskFiles, UploadItem } from '../lib/uploads';
import { AsksLeft } from './asks-left';
import { BudgetWarning } from './budget-warning';
import { ChatInput } from './chat-input';
import { UploadButton, UploadList, useProblemText } from './upload-region';

export type ChatTarget =
  | { kind: 'draft'; draft: NewConversationForm }
  | {
      kind: 'conversation';
      conversationId: string;
      /** A message to scroll to and highlight once it is shown (a search result). */
      focusMessageId?: string | null;
      history: ConversationHistory | undefined;
      loading: boolean;
    };

interface Props {
  target: ChatTarget;
  /** The first answer of a draft arrived: the conversation now exists under this id. */
  onConversationStarted: (conversationId: string) => void;
  /** True while a question is being answered (the list and new-chat button are locked meanwhile). */
  onBusyChange: (busy: boolean) => void;
  /** Shown at the left of the header (the list drawer button on narrow screens). */
  leading?: ReactNode;
}

const ACTIVE_PHASES = new Set(['connecting', 'queueing', 'waiting', 'streaming']);

/**
 * What the upstream provider said, folded away: it is usually English and meant for the administrator the message
 * tells the user to contact, so the translated message stays the only thing read inline.
 */
function RawDetail({ text, label }: { text: string | null; label: string }) {
  if (!text) return null;
  return (
    <details className="cc-ask-error-detail" data-testid="ask-error-detail">
      <summary>
        <Text span size="xs" c="dimmed">
          {label}
        </Text>
      </summary>
      <Text size="xs" c="dimmed" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
        {text}
      </Text>
    </details>
  );
}

function PendingRow({ state }: { state: AskState }) {
  const { t } = useTranslation();
  const hasAnswer = state.messages.some((m) => isServerMessage(m) && m.role !== 'user');
  if (hasAnswer) return null;
  const text =
    state.phase === 'queueing'
      ? t('chat.queuePosition', { position: state.position ?? 1 })
      : state.phase === 'connecting'
        ? t('chat.connecting')
        : t('tips.waiting');
  return (
    <Group
      gap="xs"
      className="cc-pending"
      role="status"
      aria-live="polite"
      data-testid="ask-pending"
      data-phase={state.phase}
    >
      <Loader size="xs" type="dots" />
      <Text size="sm" c="dimmed">
        {text}
      </Text>
    </Group>
  );
}

/** The chat: header, messages (history + the answer being streamed), errors in words, continue, input. */
export function ChatPanel({ target, onConversationStarted, onBusyChange, leading }: Props) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const preference = usePreference();
  const { data: user } = useUser();
  const [input, setInput] = useState('');
  const lastQuestion = useRef<{
    request: AskRequestInput;
    text: string;
    /** The uploaded files sent with it (given back to the input when the question is withdrawn). */
    uploads: UploadItem[];
    files: AskFiles | undefined;
  } | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  const history = target.kind === 'conversation' ? target.history : undefined;
  const source: ChatSource =
    target.kind === 'draft' ? target.draft.source : (history?.source ?? 'openai_web');
  const model = target.kind === 'draft' ? target.draft.model : (history?.current_model ?? null);
  const title = target.kind === 'draft' ? target.draft.title : history?.title;
  const pluginIds = target.kind === 'draft' ? target.draft.openaiWebPlugins : history?.metadata?.plugin_ids;
  const targetKey = target.kind === 'draft' ? 'draft' : target.conversationId;
  const targetKindRef = useLatest(target.kind);
  // The message list's key: a new one for every other conversation or new draft (the list opens at the latest
  // message), the same when the draft becomes its conversation — a reader who scrolled up in the first answer stays.
  const [list, setList] = useState({ target: targetKey, key: 0 });
  if (list.target !== targetKey) setList({ target: targetKey, key: list.key + 1 });
  const conversationStarted = useCallback(
    (conversationId: string) => {
      // The same list, now under the conversation's id (the target changes to it in the same render).
      setList((current) => ({ ...current, target: conversationId }));
      onConversationStarted(conversationId);
    },
    [onConversationStarted],
  );
  const permissions = useMemo(() => uploadPermissions(user, source, model), [user, source, model]);
  const uploadsAllowed = canUpload(permissions);
  const uploads = useUploads(permissions);
  const uploadsRef = useLatest(uploads);
  const problemText = useProblemText();
  // `useAsk` (below) needs the settle handler, which needs the ask's `reset`: set once `useAsk` has given it.
  const resetRef = useRef<() => void>(() => undefined);
  // While a regenerate or an edit is answered, the path shown ends where the new branch starts (undefined: the
  // conversation's own current node; null: before the first question).
  const [branchFrom, setBranchFrom] = useState<string | null | undefined>(undefined);

  const handleSettled = useCallback(
    (state: AskState, request: AskRequestInput | null) => {
      const conversationId = state.conversationId;
      setBranchFrom(undefined);
      if (isSessionExpired(state)) {
        // The login-expired dialog says it, as for a request refused so (no card with a retry that cannot work,
        // and nothing fetched again: it would only be refused once more, with a toast). The question was not
        // asked: its text and files go back to the input.
        resetRef.current();
        reportUnauthorized(apiPaths.chatSocket());
        const last = request && lastQuestion.current;
        if (last) {
          setInput((current) => current || last.text);
          uploadsRef.current.restore(last.uploads);
          lastQuestion.current = { ...last, uploads: [] };
        }
        return;
      }
      void client.invalidateQueries({ queryKey: queryKeys.me });
      if (!request) {
        // An answer resumed after a reload: what it left is in the stored conversation.
        resetRef.current();
        if (conversationId) {
          if (targetKindRef.current === 'draft') conversationStarted(conversationId);
          void client.invalidateQueries({ queryKey: queryKeys.conversation(conversationId) });
          void client.invalidateQueries({ queryKey: queryKeys.conversationList });
        }
        return;
      }
      if (state.phase === 'finished' && conversationId) {
        const received = state.messages.filter(isServerMessage);
        client.setQueryData<ConversationHistory>(queryKeys.conversation(conversationId), (old) =>
          mergeAskIntoHistory(old, received, {
            conversationId,
            source: request.source,
            model: request.model,
            title: state.title ?? request.new_title ?? null,
            pluginIds: request.openai_web_plugin_ids,
            parent: request.parent,
          }),
        );
        resetRef.current();
        if (lastQuestion.current) uploadsRef.current.release(lastQuestion.current.uploads);
        const refreshList = () => client.invalidateQueries({ queryKey: queryKeys.conversationList });
        if (request.new_conversation) {
          conversationStarted(conversationId);
          const last = received[received.length - 1];
          if (request.source === 'openai_web' && !request.new_title && !state.title && last) {
            void generateTitle(conversationId, last.id)
              .catch(() => undefined)
              .finally(() => {
                void refreshList();
                void client.invalidateQueries({ queryKey: queryKeys.conversation(conversationId) });
              });
          }
        }
        void refreshList();
        // Stopped here, the server is still writing what had arrived: read now, the conversation could come back
        // without it and replace the answer just merged (it vanished until a reload). The next read has it.
        if (!state.close?.byClient)
          void client.invalidateQueries({ queryKey: queryKeys.conversation(conversationId) });
      } else if (state.phase === 'aborted') {
        // Stopped before any answer: if the server already stored the question, show its copy; else give the
        // text back to the input.
        const echoed = state.messages.some((m) => isServerMessage(m) && m.role === 'user');
        resetRef.current();
        if (conversationId && echoed) {
          if (request.new_conversation) conversationStarted(conversationId);
          void client.invalidateQueries({ queryKey: queryKeys.conversation(conversationId) });
          void client.invalidateQueries({ queryKey: queryKeys.conversationList });
        } else if (lastQuestion.current) {
          setInput((current) => current || lastQuestion.current?.text || '');
          uploadsRef.current.restore(lastQuestion.current.uploads);
        }
      }
    },
    [client, conversationStarted, uploadsRef, targetKindRef],
  );

  const {
    state: asking,
    ask: startAsk,
    stop,
    reset,
    resume,
    resumeSettled,
  } = useAsk({ onSettled: handleSettled });
  useLayoutEffect(() => {
    resetRef.current = reset;
  }, [reset]);
  const busy = !!asking && ACTIVE_PHASES.has(asking.phase);
  // An answer resumed after a reload shows where it belongs: in its conversation, or on the new-chat page.
  const ask =
    asking &&
    (target.kind === 'draft' || !asking.conversationId || asking.conversationId === target.conversationId)
      ? asking
      : null;

  // The user's answer still running at the server (a reload, or coming back to the chat) continues live here.
  useEffect(() => resume(), [resume]);

  useEffect(() => onBusyChange(busy), [busy, onBusyChange]);

  // Another conversation: drop a finished error card of the previous one (only on a target change).
  const dropSettledAsk = useEffectEvent(() => {
    if (!busy) reset();
  });
  useEffect(() => {
    dropSettledAsk();
  }, [targetKey]);

  // The stored path shown above the answer being received ends where that answer hangs: where its messages say
  // (after a reload the stored conversation already holds a copy of the answer, and a regenerate's resumed answer
  // is not on the branch the conversation's current node showed), else where the regenerate or edit started, else
  // at the conversation's current node.
  const askFrom = ask ? askBranchPoint(history, ask.messages) : undefined;
  const pathEnd = askFrom ?? branchFrom;
  const path = useMemo(() => {
    if (!history) return [];
    const end = pathEnd === undefined ? history.current_node : pathEnd;
    return end ? getCurrentPath(history.mapping, end) : [];
  }, [history, pathEnd]);
  const messages = useMemo(() => (ask ? withAnswer(path, ask.messages) : path), [path, ask]);
  const groups = useMemo(() => groupMessages(messages), [messages]);
  // No asks left with this model (what the header's count says): nothing can be sent until that changes.
  const noAsksLeft = (model ? remainingForModel(user, source, model) : 'unlimited') === 0;
  const showContinue = !busy && !ask && canContinue(path);

  const askTarget = (): AskTarget | null => {
    if (target.kind === 'draft') return { kind: 'draft', draft: target.draft };
    return history ? { kind: 'conversation', conversationId: target.conversationId, history } : null;
  };

  // Files only go with a question the conversation may carry them in.
  const pendingFiles = uploadsAllowed ? toAskFiles(uploads.items, permissions) : undefined;
  const hasImages = !!pendingFiles?.openai_web_multimodal_image_parts?.length;

  useEffect(() => {
    if (!uploadsAllowed && uploadsRef.current.items.length) {
      const { release, detach } = uploadsRef.current;
      release(detach());
    }
  }, [uploadsAllowed, uploadsRef]);

  const send = (text: string, options: { continueAnswer?: boolean } = {}) => {
    const at = askTarget();
    if (!at || busy) return;
    const webContinue = options.continueAnswer && source === 'openai_web';
    const content = webContinue ? WEB_CONTINUE_TEXT : text;
    const files = options.continueAnswer ? undefined : pendingFiles;
    const request = buildAskRequest(
      at,
      content,
      (label) => t('chat.defaultApiTitle', { model: label }),
      files,
    );
    const sentUploads = options.continueAnswer ? [] : uploads.detach();
    lastQuestion.current = { request, text: options.continueAnswer ? '' : text, uploads: sentUploads, files };
    if (!options.continueAnswer) setInput('');
    startAsk(request, webContinue ? null : makeTempUserMessage(source, content, model, files));
  };

  /** Asks again from another point of the conversation: a regenerated answer or an edited question. */
  const askBranch = (
    from: string | null,
    parent: string | null,
    text: string,
    action: 'next' | 'variant',
  ) => {
    const at = askTarget();
    if (!at || busy || at.kind !== 'conversation') return;
    const base = buildAskRequest(at, text, (label) => t('chat.defaultApiTitle', { model: label }));
    const request: AskRequestInput = { ...base, parent, action };
    lastQuestion.current = { request, text: '', uploads: [], files: undefined };
    setBranchFrom(from);
    startAsk(request, action === 'next' ? makeTempUserMessage(source, text, model, undefined) : null);
    // The button or the edit box that asked is replaced by the answer: the focus goes to the message box.
    inputRef.current?.focus();
  };

  const handleSwitch = (conversationId: string, mapping: ConversationHistory['mapping'], id: string) => {
    const leaf = leafOf(mapping, id);
    const key = queryKeys.conversation(conversationId);
    client.setQueryData<ConversationHistory>(key, (old) => (old ? { ...old, current_node: leaf } : old));
    setCurrentNode(conversationId, leaf).catch(() => void client.invalidateQueries({ queryKey: key }));
  };

  // A search result on another branch: show that branch (as the version switcher would), then the list scrolls to it.
  const focusMessageId = target.kind === 'conversation' ? (target.focusMessageId ?? null) : null;
  const focusHandled = useRef<string | null>(null);
  const showFocusBranch = useEffectEvent(() => {
    if (target.kind !== 'conversation' || !history || !focusMessageId || busy) return;
    const key = `${target.conversationId}:${focusMessageId}`;
    if (focusHandled.current === key) return;
    focusHandled.current = key;
    const onPath = groups.some((g) => g.messages.some((m) => m.id === focusMessageId));
    if (!onPath && history.mapping[focusMessageId])
      handleSwitch(target.conversationId, history.mapping, focusMessageId);
  });
  useEffect(() => {
    showFocusBranch();
  }, [focusMessageId, history, busy]);

  const lastAnswerGroupId = [...groups].reverse().find((g) => g.role === 'assistant')?.id ?? null;
  // The last row is the answer being received while one streams here, and may be until the resume on opening knows
  // whether one runs (its first frame, or its close): not marked incomplete meanwhile (only that row re-renders).
  const resumePending = !resumeSettled && !asking;
  const liveGroupId = (!!ask && busy) || resumePending ? (groups[groups.length - 1]?.id ?? null) : null;
  // The same object until what it offers changes: every row reads it, and a new one each frame of a streaming
  // answer would re-render them all.
  const askBranchRef = useLatest(askBranch);
  const switchRef = useLatest(handleSwitch);
  const conversationId = target.kind === 'conversation' ? target.conversationId : null;
  const answering = busy || !!ask;
  const messageActions = useMemo<MessageActions | null>(
    () =>
      conversationId && history
        ? {
            siblingsOf: (id) => siblingsOf(history.mapping, id),
            switchTo: (id) => !busy && switchRef.current(conversationId, history.mapping, id),
            // Regenerate and edit ask too: not offered while an answer runs, nor with no asks left.
            lastAnswerGroupId: answering || noAsksLeft ? null : lastAnswerGroupId,
            regenerate: (answer) => {
              const question = answer.parent ? history.mapping[answer.parent] : undefined;
              if (question?.role === 'user')
                askBranchRef.current(question.id, question.id, textOf(question), 'variant');
            },
            edit:
              answering || noAsksLeft
                ? undefined
                : (question, text) =>
                    askBranchRef.current(question.parent ?? null, question.parent ?? null, text, 'next'),
          }
        : null,
    [conversationId, history, busy, answering, noAsksLeft, lastAnswerGroupId, switchRef, askBranchRef],
  );

  const handleSend = () => {
    const text = input.trim();
    if (text || hasImages) send(text);
  };

  const handleFiles = (files: File[]) => {
    // One notice per problem: 25 files at once give "5 files not added", not five stacked toasts.
    for (const { problem, files: refused } of groupRejections(uploads.add(files))) {
      notifications.show({
        color: 'yellow',
        title: refused.length === 1 ? refused[0]!.name : t('upload.filesNotAdded', { count: refused.length }),
        message: problemText(problem),
        autoClose: 4000,
      });
    }
  };

  const handleRetry = () => {
    const last = lastQuestion.current;
    if (!last) return;
    reset();
    startAsk(
      last.request,
      last.request.text_content === WEB_CONTINUE_TEXT
        ? null
        : makeTempUserMessage(source, last.request.text_content, model, last.files),
    );
  };

  const handleDismiss = () => {
    reset();
    if (lastQuestion.current?.text) setInput((current) => current || lastQuestion.current?.text || '');
    if (lastQuestion.current?.uploads.length) {
      uploads.restore(lastQuestion.current.uploads);
      lastQuestion.current = { ...lastQuestion.current, uploads: [] };
    }
    if (target.kind === 'conversation')
      void client.invalidateQueries({ queryKey: queryKeys.conversation(target.conversationId) });
    inputRef.current?.focus();
  };

  const loading = target.kind === 'conversation' && target.loading && !history;
  const inputDisabled = loading || (target.kind === 'conversation' && !history);

  const footer = (
    <>
      {ask && busy && <PendingRow state={ask} />}
      {ask?.phase === 'failed' && (
        <Alert
          color="red"
          title={t('chat.askFailed')}
          className="cc-ask-error"
          role="alert"
          data-testid="ask-error"
        >
          <Stack gap="xs">
            <Text size="sm">{describeAskFailure(ask, t)}</Text>
            <RawDetail text={askFailureRawDetail(ask)} label={t('chat.errorDetails')} />
            <Group gap="xs">
              {canRetryAsk(ask) && (
                <Button size="xs" onClick={handleRetry}>
                  {t('chat.retry')}
                </Button>
              )}
              <Button size="xs" variant="default" onClick={handleDismiss}>
                {t('chat.withdraw')}
              </Button>
            </Group>
          </Stack>
        </Alert>
      )}
    </>
  );

  // While an answer streams the panel renders once per animation frame: the header and the input box (whose
  // autosizing measures the layout) are kept as they were unless their own inputs change.
  const sendRef = useLatest(handleSend);
  const filesRef = useLatest(handleFiles);
  const onSend = useCallback(() => sendRef.current(), [sendRef]);
  const onFiles = useCallback((files: File[]) => filesRef.current(files), [filesRef]);
  const userMarkdown = preference.renderUserMessageInMd;
  const header = useMemo(
    () => (
      <ConversationHeader
        title={title}
        source={source}
        model={model}
        pluginIds={pluginIds}
        leading={leading}
        actions={
          <>
            <AsksLeft user={user} source={source} model={model} />
            {history && <ExportActions history={history} userMarkdown={userMarkdown} />}
          </>
        }
      />
    ),
    [title, source, model, pluginIds, leading, user, history, userMarkdown],
  );
  // A new conversation's form was just confirmed: the message box takes the focus (the dialog's buttons are gone).
  const draftForm = target.kind === 'draft' ? target.draft : null;
  useEffect(() => {
    if (draftForm) inputRef.current?.focus();
  }, [draftForm]);
  // The stop button gives way to the send button, disabled: the focus goes to the message box, not to the page.
  const stopAndFocus = useCallback(() => {
    stop();
    inputRef.current?.focus();
  }, [stop]);
  const inputBox = useMemo(
    () => (
      <ChatInput
        ref={inputRef}
        value={input}
        onChange={setInput}
        onSend={onSend}
        onStop={stopAndFocus}
        busy={busy}
        disabled={inputDisabled}
        notice={noAsksLeft ? t('chat.noAsksLeft') : undefined}
        onFiles={uploadsAllowed ? onFiles : undefined}
        blocked={uploads.uploading || uploads.failed}
        hasContent={hasImages}
        attachButton={
          uploadsAllowed ? (
            <UploadButton
              permissions={permissions}
              count={uploads.items.length}
              disabled={inputDisabled}
              onFiles={onFiles}
            />
          ) : undefined
        }
        attachments={
          uploadsAllowed ? (
            <UploadList
              items={uploads.items}
              permissions={permissions}
              onRemove={uploads.remove}
              onRetry={uploads.retry}
            />
          ) : undefined
        }
      />
    ),
    [
      input,
      onSend,
      stopAndFocus,
      busy,
      inputDisabled,
      noAsksLeft,
      t,
      uploadsAllowed,
      onFiles,
      uploads.uploading,
      uploads.failed,
      uploads.items,
      uploads.remove,
      uploads.retry,
      hasImages,
      permissions,
    ],
  );

  const conversationIdForLinks =
    target.kind === 'conversation' ? target.conversationId : (ask?.conversationId ?? null);
  return (
    <ConversationIdContext.Provider value={conversationIdForLinks}>
      <div className={`cc-chat${preference.widerConversationPage ? '' : ' cc-chat-narrow'}`}>
        {header}
        {loading ? (
          <Stack p="md" gap="lg" data-testid="history-loading">
            {[0, 1, 2].map((i) => (
              <Stack key={i} gap={6}>
                <Skeleton h={14} w="30%" />
                <Skeleton h={12} />
                <Skeleton h={12} w="80%" />
              </Stack>
            ))}
          </Stack>
        ) : groups.length === 0 && !ask ? (
          <div className="cc-chat-empty">
            <Text c="dimmed">{t('chat.startHint')}</Text>
          </div>
        ) : (
          <MessageActionsContext.Provider value={messageActions}>
            <MessageList
              groups={groups}
              model={model}
              userMarkdown={preference.renderUserMessageInMd}
              resetKey={String(list.key)}
              focusMessageId={target.kind === 'conversation' ? target.focusMessageId : null}
              footer={footer}
              codeWrap={preference.codeAutoWrap}
              liveGroupId={liveGroupId}
            />
          </MessageActionsContext.Provider>
        )}
        <div className="cc-chat-bottom hide-in-print">
          {showContinue && (
            <Group justify="center" mb="xs">
              <Button
                size="xs"
                variant="light"
                leftSection={<ContinueIcon size={14} />}
                onClick={() => send('continue', { continueAnswer: true })}
                disabled={noAsksLeft}
                data-testid="continue-button"
              >
                {t('chat.continue')}
              </Button>
            </Group>
          )}
          <BudgetWarning user={user} />
          {inputBox}
        </div>
      </div>
    </ConversationIdContext.Provider>
  );
}
