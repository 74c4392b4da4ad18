import { ActionIcon, Badge, Group, Stack, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { memo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatMessage } from '@cc/contracts';
import { displayTypeOf, splitGroup, textOf } from '../../lib/conversation/history';
import type { MessageGroup } from '../../lib/conversation/history';
import { formatBytes, formatDateTime, formatRelative } from '../../lib/format';
import { apiPaths } from '../../config/paths';
import { CodeIcon, CopyIcon, DownloadIcon, MarkdownIcon, PaperclipIcon } from '../icons';
import { ModelAvatar, UserAvatar } from '../model-display';
import { BucketView } from './buckets';

export interface MessageRowProps {
  group: MessageGroup;
  /** Model of the conversation (a message without its own model uses it). */
  model: string | null | undefined;
  /** Render user messages as markdown (preference renderUserMessageInMd). */
  userMarkdown: boolean;
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

/** The files of a user message as chips that download them through the server (shown once per row). */
function Attachments({ messages }: { messages: ChatMessage[] }) {
  const { t } = useTranslation();
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
      {attachments.map((a) => (
        <a
          key={a.id}
          role="listitem"
          className="cc-attachment-chip"
          href={apiPaths.fileDownload(a.id)}
          download={a.name}
          title={t('render.downloadFile', { name: a.name })}
          data-testid="attachment-chip"
        >
          <PaperclipIcon size={14} />
          <Text span size="sm" truncate className="cc-attachment-name">
            {a.name}
          </Text>
          {typeof a.size === 'number' && (
            <Text span c="dimmed" size="xs">
              {formatBytes(a.size)}
            </Text>
          )}
          <DownloadIcon size={14} />
        </a>
      ))}
    </Group>
  );
}

function MessageRowImpl({ group, model, userMarkdown }: MessageRowProps) {
  const { t, i18n } = useTranslation();
  const isUser = group.role === 'user';
  const [markdown, setMarkdown] = useState(!isUser || userMarkdown);
  const [raw, setRaw] = useState(false);
  const buckets = splitGroup(group);
  const first = group.messages[0];
  const last = group.messages[group.messages.length - 1];
  const rowModel = group.messages.find((m) => m.model)?.model ?? model;
  const time = last?.create_time ?? first?.create_time;
  const isTemp = group.messages.every((m) => m.id.startsWith('temp_'));

  const handleCopy = () => {
    const text = buckets
      .filter((b) => ['text', 'multimodal_text'].includes(displayTypeOf(b, model)))
      .map((b) => b.messages.map(textOf).join(''))
      .join('\n\n');
    navigator.clipboard.writeText(text).then(
      () => notifications.show({ color: 'green', message: t('render.copied'), autoClose: 1500 }),
      () => notifications.show({ color: 'red', message: t('render.copyFailed'), autoClose: 3000 }),
    );
  };

  return (
    <article
      className={`cc-row ${isUser ? 'cc-row-user' : 'cc-row-assistant'}`}
      aria-label={isUser ? t('render.you') : t('render.assistant')}
      data-group-id={group.id}
      data-role={group.role}
    >
      <div className="cc-row-inner">
        <div className="cc-row-avatar">{isUser ? <UserAvatar /> : <ModelAvatar model={rowModel} />}</div>
        <div className="cc-row-content">
          {isUser && <Attachments messages={group.messages} />}
          {raw ? (
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
          {!isTemp && (
            <Group gap={6} justify="flex-end" className="cc-row-footer hide-in-print">
              {time && (
                <Tooltip label={formatDateTime(time, i18n.language)}>
                  <Text size="xs" c="dimmed" component="span">
                    {formatRelative(time, i18n.language)}
                  </Text>
                </Tooltip>
              )}
              {group.messages.length > 1 && (
                <Badge size="xs" variant="default" tt="none">
                  {t('render.messageCount', { count: group.messages.length })}
                </Badge>
              )}
              <Tooltip label={t('render.copyMessage')}>
                <ActionIcon
                  size="sm"
                  variant="subtle"
                  color="gray"
                  onClick={handleCopy}
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
                  onClick={() => setMarkdown((v) => !v)}
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
                  onClick={() => setRaw((v) => !v)}
                  aria-label={t('render.toggleRaw')}
                  aria-pressed={raw}
                >
                  <CodeIcon size={14} />
                </ActionIcon>
              </Tooltip>
            </Group>
          )}
        </div>
      </div>
    </article>
  );
}

/** A row re-renders only when one of its messages changed (message objects are kept stable). */
export const MessageRow = memo(MessageRowImpl, (prev, next) => {
  if (prev.model !== next.model || prev.userMarkdown !== next.userMarkdown) return false;
  const a = prev.group.messages;
  const b = next.group.messages;
  return a.length === b.length && a.every((m, i) => m === b[i]);
});
