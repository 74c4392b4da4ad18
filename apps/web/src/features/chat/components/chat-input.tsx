import { ActionIcon, Group, Stack, Text, Textarea, Tooltip } from '@mantine/core';
import { forwardRef, useRef, useState } from 'react';
import type { ClipboardEvent, DragEvent, KeyboardEvent, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_ASK_TEXT_CHARS } from '@cc/contracts';
import { SendIcon, StopIcon } from '../../../components/icons';
import { OWN_DIRECTION_INPUT } from '../../../lib/bidi';
import { isSendKeyEvent, usePreference } from '../../../lib/preferences';

interface Props {
  value: string;
  onChange: (value: string) => void;
  onSend: () => void;
  onStop: () => void;
  /** An answer is being received: the send button becomes a stop button. */
  busy: boolean;
  disabled: boolean;
  /** Files may be attached: paste and drag-and-drop hand them here. */
  onFiles?: (files: File[]) => void;
  /** The attach button, left of the box. */
  attachButton?: ReactNode;
  /** The files of the next question, above the box. */
  attachments?: ReactNode;
  /** Sending waits (files still uploading or failed). */
  blocked?: boolean;
  /** Something besides text can be sent (images need no text). */
  hasContent?: boolean;
  /** Why nothing can be sent now (no asks left): said under the box, and the send button is disabled. */
  notice?: string;
}

function hasFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files');
}

/** The message box: sends on the preferred key (never during IME composition), stop while answering. */
export const ChatInput = forwardRef<HTMLTextAreaElement, Props>(function ChatInput(
  {
    value,
    onChange,
    onSend,
    onStop,
    busy,
    disabled,
    onFiles,
    attachButton,
    attachments,
    blocked,
    hasContent,
    notice,
  },
  ref,
) {
  const { t, i18n } = useTranslation();
  const { sendKey } = usePreference();
  const [dragging, setDragging] = useState(false);
  const dragDepth = useRef(0);
  // The server refuses a longer question: said here, with the count, before it is sent (the text stays as typed).
  const tooLong = value.length > MAX_ASK_TEXT_CHARS;
  const canSend =
    !busy && !disabled && !blocked && !notice && !tooLong && (value.trim().length > 0 || !!hasContent);
  const acceptsFiles = !!onFiles && !disabled;

  const handlePaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData?.files ?? []);
    if (!acceptsFiles || !files.length) return;
    event.preventDefault();
    onFiles(files);
  };

  const handleDragEnter = (event: DragEvent<HTMLDivElement>) => {
    if (!acceptsFiles || !hasFiles(event)) return;
    event.preventDefault();
    dragDepth.current += 1;
    setDragging(true);
  };

  const handleDragOver = (event: DragEvent<HTMLDivElement>) => {
    if (!acceptsFiles || !hasFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
  };

  const handleDragLeave = () => {
    dragDepth.current = Math.max(0, dragDepth.current - 1);
    if (dragDepth.current === 0) setDragging(false);
  };

  const handleDrop = (event: DragEvent<HTMLDivElement>) => {
    dragDepth.current = 0;
    setDragging(false);
    if (!acceptsFiles) return;
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (!files.length) return;
    event.preventDefault();
    onFiles(files);
  };

  const handleKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!isSendKeyEvent(event.nativeEvent, sendKey)) return;
    event.preventDefault();
    if (canSend) onSend();
  };

  return (
    <Stack
      gap={6}
      className={`cc-input-region${dragging ? ' cc-dragging' : ''}`}
      onDragEnter={handleDragEnter}
      onDragOver={handleDragOver}
      onDragLeave={handleDragLeave}
      onDrop={handleDrop}
      data-testid="upload-dropzone"
    >
      {dragging && (
        <div className="cc-drop-overlay" aria-hidden="true">
          <Text size="sm" fw={500}>
            {t('upload.dropHere')}
          </Text>
        </div>
      )}
      {attachments}
      <Group gap="xs" align="flex-end" wrap="nowrap" className="cc-input">
        {attachButton}
        <Textarea
          ref={ref}
          value={value}
          onChange={(e) => onChange(e.currentTarget.value)}
          onKeyDown={handleKeyDown}
          onPaste={handlePaste}
          placeholder={t('chat.inputPlaceholder', { key: sendKey })}
          aria-label={t('chat.inputLabel')}
          styles={OWN_DIRECTION_INPUT}
          autosize
          minRows={1}
          maxRows={10}
          disabled={disabled}
          description={notice}
          descriptionProps={{ 'data-testid': 'send-notice' }}
          inputWrapperOrder={['label', 'input', 'description', 'error']}
          error={
            tooLong
              ? t('chat.tooLong', {
                  count: new Intl.NumberFormat(i18n.language).format(value.length),
                  max: new Intl.NumberFormat(i18n.language).format(MAX_ASK_TEXT_CHARS),
                })
              : undefined
          }
          style={{ flex: 1 }}
          data-testid="chat-input"
        />
        {busy ? (
          <Tooltip label={t('chat.stop')}>
            <ActionIcon
              size={42}
              color="red"
              variant="filled"
              onClick={onStop}
              aria-label={t('chat.stop')}
              data-testid="stop-button"
            >
              <StopIcon />
            </ActionIcon>
          </Tooltip>
        ) : (
          <Tooltip label={t('chat.send')}>
            <ActionIcon
              size={42}
              variant="filled"
              onClick={onSend}
              disabled={!canSend}
              aria-label={t('chat.send')}
              data-testid="send-button"
            >
              <SendIcon />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>
    </Stack>
  );
});
