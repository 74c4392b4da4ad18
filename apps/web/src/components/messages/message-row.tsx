import { ActionIcon, Badge, Button, Group, Stack, Text, Textarea, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { memo, useCallback, useContext, useMemo, useRef, useState } from 'react';
import type { Dispatch, SetStateAction } from 'react';
import { flushSync } from 'react-dom';
import { useTranslation } from 'react-i18next';
import type { ChatMessage } from '@cc/contracts';
import { displayTypeOf, incompleteReason, splitGroup, textOf } from '../../lib/conversation/history';
import type { IncompleteReason, MessageGroup } from '../../lib/conversation/history';
import { formatBytes, formatDateTime, formatRelative } from '../../lib/format';
import { useLatest } from '../../lib/use-latest';
import { fileContentUrl } from '../../lib/assets';
import { focusMainContent } from '../../lib/focus';
import { OWN_DIRECTION_INPUT } from '../../lib/bidi';
import {
  ChevronRightIcon,
  CodeIcon,
  CopyIcon,
  DownloadIcon,
  MarkdownIcon,
  PaperclipIcon,
  PencilIcon,
  RefreshIcon,
} from '../icons';
import { ModelAvatar, UserAvatar } from '../model-display';
import { BucketView } from './buckets';
import { useShareToken } from './conversation-context';
import { MessageActionsContext } from './message-actions';
import type { MessageActions } from './message-actions';

export interface MessageRowProps {
  group: MessageGroup;
  /** Model of the conversation (a message without its own model uses it). */
  model: string | null | undefined;
  /** Render user messages as markdown (preference renderUserMessageInMd). */
  userMarkdown: boolean;
  /**
   * The answer being received (or that may be, until the chat knows): it looks unfinished while it streams, and is
   * not marked incomplete.
   */
  live?: boolean;
}

/** Upstream file ids shown as images in the message (those attachments need no chip of their own). */
function imageFileIds(message: ChatMessage | undefined): Set<string> {
  const ids = new Set<string>();
  if (message?.source !== 'openai_web' || message.content?.content_type !== 'multimodal_text') return ids;
  for (const part of message.content.parts) {
    if (typeof part !== 'object' || part === null) continue;
    const m = /^file-service:\/\/(.+)$/.exec(part.asset_pointer);
    if (m?.[1]) ids.add(m[1]);
  }
  return ids;
}

/**
 * The files of a user message as chips that download them through the server (shown once per row); on a share
 * link's page through the link. A file without an id (a link made before files were shared) is named only.
 */
function Attachments({ messages }: { messages: ChatMessage[] }) {
  const { t } = useTranslation();
  const shareToken = useShareToken();
  const last = messages[messages.length - 1];
  const all = last?.source === 'openai_web' ? (last.metadata?.attachments ?? []) : [];
  const shown = imageFileIds(last);
  const attachments = all.filter((a) => !shown.has(a.id));
  if (!attachments.length) return null;
  return (
    <Group
      gap={6}
      className="cc-attachments"
      role="list"
      aria-label={t('render.attachments', { count: attachments.length })}
    >
      {attachments.map((a, i) => {
        const label = (
          <>
            <PaperclipIcon size={14} />
            <Text span size="sm" truncate className="cc-attachment-name">
              {a.name}
            </Text>
            {typeof a.size === 'number' && (
              <Text span c="dimmed" size="xs">
                {formatBytes(a.size)}
              </Text>
            )}
          </>
        );
        if (!a.id) {
          return (
            <span key={i} role="listitem" className="cc-attachment-chip">
              {label}
            </span>
          );
        }
        return (
          <a
            key={a.id}
            role="listitem"
            className="cc-attachment-chip"
            href={fileContentUrl(a.id, shareToken)}
            download={a.name}
            title={t('render.downloadFile', { name: a.name })}
            data-testid="attachment-chip"
          >
            {label}
            <DownloadIcon size={14} />
          </a>
        );
      })}
    </Group>
  );
}

/** "‹ 2 / 3 ›": the versions of this row's first message (regenerated answers, edited questions). */
function BranchSwitcher({ id, actions }: { id: string; actions: MessageActions }) {
  const { t } = useTranslation();
  const siblings = actions.siblingsOf(id);
  const index = siblings.indexOf(id);
  if (siblings.length < 2 || index < 0) return null;
  const go = (step: number) => {
    const target = siblings[index + step];
    if (target) actions.switchTo(target);
  };
  return (
    <Group gap={2} className="cc-branch" data-testid="branch-switcher">
      <ActionIcon
        size="sm"
        variant="subtle"
        color="gray"
        disabled={index === 0}
        onClick={() => go(-1)}
        aria-label={t('render.previousVersion')}
      >
        <ChevronRightIcon size={14} style={{ transform: 'rotate(180deg)' }} />
      </ActionIcon>
      <Text size="xs" c="dimmed" component="span" data-testid="branch-position">
        {t('render.versionPosition', { index: index + 1, count: siblings.length })}
      </Text>
      <ActionIcon
        size="sm"
        variant="subtle"
        color="gray"
        disabled={index === siblings.length - 1}
        onClick={() => go(1)}
        aria-label={t('render.nextVersion')}
      >
        <ChevronRightIcon size={14} />
      </ActionIcon>
    </Group>
  );
}

/**
 * Editing a sent question: the new text is asked beside the original. The box takes the focus with the caret at the
 * end; Escape cancels.
 */
function EditQuestion({
  text,
  onSave,
  onCancel,
}: {
  text: string;
  onSave: (text: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState(text);
  // Called once, as the box mounts (a stable callback).
  const caretAtEnd = useCallback((box: HTMLTextAreaElement | null) => {
    if (!box) return;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }, []);
  return (
    <Stack gap="xs" data-testid="edit-question">
      <Textarea
        autosize
        minRows={2}
        maxRows={12}
        value={draft}
        onChange={(e) => setDraft(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Escape' || e.nativeEvent.isComposing) return;
          e.preventDefault();
          onCancel();
        }}
        aria-label={t('render.editQuestion')}
        styles={OWN_DIRECTION_INPUT}
        ref={caretAtEnd}
      />
      <Group gap="xs" justify="flex-end">
        <Button size="xs" variant="default" onClick={onCancel}>
          {t('render.cancelEdit')}
        </Button>
        <Button
          size="xs"
          disabled={!draft.trim()}
          onClick={() => onSave(draft.trim())}
          data-testid="edit-submit"
        >
          {t('render.submitEdit')}
        </Button>
      </Group>
    </Stack>
  );
}

interface RowFooterProps {
  groupId: string;
  firstId: string;
  /**
   * The row's first message as it is now: an answer that grows every frame keeps its footer (time, tooltips,
   * buttons) as it was; the actions read the message when clicked.
   */
  getFirst: () => ChatMessage | undefined;
  time: string | null | undefined;
  count: number;
  /** The answer ended before it was complete, and why. */
  incomplete: IncompleteReason | null;
  isUser: boolean;
  editing: boolean;
  markdown: boolean;
  raw: boolean;
  onEdit: (editing: boolean) => void;
  onMarkdown: Dispatch<SetStateAction<boolean>>;
  onRaw: Dispatch<SetStateAction<boolean>>;
  onCopy: () => void;
}

/**
 * The date and time of a row, for its tooltip: rendered when the tooltip opens (the first date formatter of a page
 * costs ~20 ms of loading locale data, too much for the first render of a conversation).
 */
function FullTime({ time }: { time: string }) {
  const { i18n } = useTranslation();
  return <>{formatDateTime(time, i18n.language)}</>;
}

/** Time, message count and the row's buttons. */
const RowFooter = memo(function RowFooter({
  groupId,
  firstId,
  getFirst,
  time,
  count,
  incomplete,
  isUser,
  editing,
  markdown,
  raw,
  onEdit,
  onMarkdown,
  onRaw,
  onCopy,
}: RowFooterProps) {
  const actions = useContext(MessageActionsContext);
  const { t, i18n } = useTranslation();
  return (
    <Group gap={6} justify="flex-end" className="cc-row-footer hide-in-print">
      {incomplete && (
        <Text size="xs" c="dimmed" component="span" me="auto" data-testid="answer-incomplete">
          {t(incomplete === 'length' ? 'render.incompleteLength' : 'render.incompleteInterrupted')}
        </Text>
      )}
      {actions && <BranchSwitcher id={firstId} actions={actions} />}
      {time && (
        <Tooltip label={<FullTime time={time} />}>
          <Text size="xs" c="dimmed" component="span">
            {formatRelative(time, i18n.language)}
          </Text>
        </Tooltip>
      )}
      {count > 1 && (
        <Badge size="xs" variant="default" tt="none">
          {t('render.messageCount', { count })}
        </Badge>
      )}
      {isUser && actions?.edit && !editing && (
        <Tooltip label={t('render.editQuestion')}>
          <ActionIcon
            size="sm"
            variant="subtle"
            color="gray"
            onClick={() => onEdit(true)}
            aria-label={t('render.editQuestion')}
            data-testid="edit-button"
          >
            <PencilIcon size={14} />
          </ActionIcon>
        </Tooltip>
      )}
      {!isUser && actions?.regenerate && actions.lastAnswerGroupId === groupId && (
        <Tooltip label={t('render.regenerate')}>
          <ActionIcon
            size="sm"
            variant="subtle"
            color="gray"
            onClick={() => {
              const answer = getFirst();
              if (answer) actions.regenerate?.(answer);
            }}
            aria-label={t('render.regenerate')}
            data-testid="regenerate-button"
          >
            <RefreshIcon size={14} />
          </ActionIcon>
        </Tooltip>
      )}
      <Tooltip label={t('render.copyMessage')}>
        <ActionIcon
          size="sm"
          variant="subtle"
          color="gray"
          onClick={onCopy}
          aria-label={t('render.copyMessage')}
        >
          <CopyIcon size={14} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('render.toggleMarkdown')}>
        <ActionIcon
          size="sm"
          variant={markdown ? 'light' : 'subtle'}
          color="gray"
          onClick={() => onMarkdown((v) => !v)}
          aria-label={t('render.toggleMarkdown')}
          aria-pressed={markdown}
        >
          <MarkdownIcon size={14} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('render.toggleRaw')}>
        <ActionIcon
          size="sm"
          variant={raw ? 'light' : 'subtle'}
          color={raw ? 'teal' : 'gray'}
          onClick={() => onRaw((v) => !v)}
          aria-label={t('render.toggleRaw')}
          aria-pressed={raw}
        >
          <CodeIcon size={14} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
});

function MessageRowImpl({ group, model, userMarkdown, live = false }: MessageRowProps) {
  const actions = useContext(MessageActionsContext);
  const [editing, setEditing] = useState(false);
  const { t } = useTranslation();
  const isUser = group.role === 'user';
  const [markdown, setMarkdown] = useState(!isUser || userMarkdown);
  const [raw, setRaw] = useState(false);
  const buckets = splitGroup(group);
  const first = group.messages[0];
  const last = group.messages[group.messages.length - 1];
  const rowModel = group.messages.find((m) => m.model)?.model ?? model;
  const time = last?.create_time ?? first?.create_time;
  const isTemp = group.messages.every((m) => m.id.startsWith('temp_'));
  const incomplete = live ? null : incompleteReason(group);
  // Translated once per language, not on each of the frames a streaming answer renders.
  const rowLabel = useMemo(() => (isUser ? t('render.you') : t('render.assistant')), [isUser, t]);
  const articleRef = useRef<HTMLElement>(null);
  // The edit box is gone: the focus goes back to the ✎ button, else (the answer streams) to the message box.
  const handleEditCancel = () => {
    flushSync(() => setEditing(false));
    const button = articleRef.current?.querySelector<HTMLElement>('[data-testid="edit-button"]');
    if (button) button.focus();
    else focusMainContent();
  };

  // The footer keeps its props while the answer streams: its actions read the row as it is when clicked.
  const rowRef = useLatest({ group, model });
  const getFirst = useCallback(() => rowRef.current.group.messages[0], [rowRef]);
  const onCopy = useCallback(() => {
    const { group: current, model: currentModel } = rowRef.current;
    const text = splitGroup(current)
      .filter((b) => ['text', 'multimodal_text'].includes(displayTypeOf(b, currentModel)))
      .map((b) => b.messages.map(textOf).join(''))
      .join('\n\n');
    navigator.clipboard.writeText(text).then(
      () => notifications.show({ color: 'green', message: t('render.copied'), autoClose: 1500 }),
      () => notifications.show({ color: 'red', message: t('render.copyFailed'), autoClose: 3000 }),
    );
  }, [rowRef, t]);

  return (
    <article
      ref={articleRef}
      className={`cc-row ${isUser ? 'cc-row-user' : 'cc-row-assistant'}`}
      aria-label={rowLabel}
      data-group-id={group.id}
      data-role={group.role}
    >
      <div className="cc-row-inner">
        <div className="cc-row-avatar">{isUser ? <UserAvatar /> : <ModelAvatar model={rowModel} />}</div>
        <div className="cc-row-content">
          {isUser && <Attachments messages={group.messages} />}
          {editing && first && actions?.edit ? (
            <EditQuestion
              text={textOf(first)}
              onCancel={handleEditCancel}
              onSave={(text) => {
                setEditing(false);
                actions.edit?.(first, text);
                // The edited question is asked: the answer streams, the next question goes in the message box.
                focusMainContent();
              }}
            />
          ) : raw ? (
            <pre className="cc-raw">{JSON.stringify(group.messages, null, 2)}</pre>
          ) : (
            <Stack gap="sm">
              {buckets.map((bucket) => (
                <BucketView
                  key={bucket.id}
                  bucket={bucket}
                  type={displayTypeOf(bucket, model)}
                  markdown={markdown}
                />
              ))}
            </Stack>
          )}
          {!isTemp && first && (
            <RowFooter
              groupId={group.id}
              firstId={first.id}
              getFirst={getFirst}
              time={time}
              count={group.messages.length}
              incomplete={incomplete}
              isUser={isUser}
              editing={editing}
              markdown={markdown}
              raw={raw}
              onEdit={setEditing}
              onMarkdown={setMarkdown}
              onRaw={setRaw}
              onCopy={onCopy}
            />
          )}
        </div>
      </div>
    </article>
  );
}

/** A row re-renders only when one of its messages changed (message objects are kept stable), or it went live. */
export const MessageRow = memo(MessageRowImpl, (prev, next) => {
  if (prev.model !== next.model || prev.userMarkdown !== next.userMarkdown || prev.live !== next.live)
    return false;
  const a = prev.group.messages;
  const b = next.group.messages;
  return a.length === b.length && a.every((m, i) => m === b[i]);
});
