import { ActionIcon, Badge, FileButton, Group, Image, Paper, Progress, Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { IMAGE_MIME_TYPES, MAX_IMAGES_PER_ASK } from '@cc/contracts';
import { CloseIcon, PaperclipIcon, RefreshIcon } from '../../../components/icons';
import { formatBytes } from '../../../lib/format';
import type { UploadItem, UploadPermissions, UploadProblem } from '../lib/uploads';

/** What the picker offers: images when they may be image parts, anything when files may be attached. */
function acceptOf(permissions: UploadPermissions): string | undefined {
  return permissions.attachments ? undefined : IMAGE_MIME_TYPES.join(',');
}

export function useProblemText() {
  const { t } = useTranslation();
  return (problem: UploadProblem) => t(problem.key, problem.values);
}

/** The paper-clip picker (several files at once), with the number of files in the list. */
export function UploadButton({
  permissions,
  count,
  disabled,
  onFiles,
}: {
  permissions: UploadPermissions;
  count: number;
  disabled: boolean;
  onFiles: (files: File[]) => void;
}) {
  const { t } = useTranslation();
  return (
    <FileButton
      multiple
      accept={acceptOf(permissions)}
      onChange={(files) => onFiles(files)}
      disabled={disabled}
    >
      {(props) => (
        <Tooltip label={t('upload.attach')}>
          <ActionIcon
            {...props}
            size={42}
            variant="default"
            aria-label={t('upload.attach')}
            data-testid="upload-button"
            pos="relative"
            disabled={disabled}
          >
            <PaperclipIcon />
            {count > 0 && (
              <Badge size="xs" circle pos="absolute" top={-6} right={-6} data-testid="upload-count">
                {count}
              </Badge>
            )}
          </ActionIcon>
        </Tooltip>
      )}
    </FileButton>
  );
}

function ItemActions({
  item,
  onRemove,
  onRetry,
}: {
  item: UploadItem;
  onRemove: (key: string) => void;
  onRetry: (key: string) => void;
}) {
  const { t } = useTranslation();
  const name = item.file.name;
  return (
    <Group gap={2} wrap="nowrap" className="cc-upload-actions">
      {item.status === 'error' && (
        <Tooltip label={t('upload.retry')}>
          <ActionIcon
            size="sm"
            variant="subtle"
            onClick={() => onRetry(item.key)}
            aria-label={t('upload.retryFile', { name })}
            data-testid="upload-retry"
          >
            <RefreshIcon size={14} />
          </ActionIcon>
        </Tooltip>
      )}
      <Tooltip label={item.status === 'uploading' ? t('upload.cancel') : t('upload.remove')}>
        <ActionIcon
          size="sm"
          variant="subtle"
          color="gray"
          onClick={() => onRemove(item.key)}
          aria-label={t('upload.removeFile', { name })}
          data-testid="upload-remove"
        >
          <CloseIcon size={14} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}

function UploadCard({
  item,
  onRemove,
  onRetry,
}: {
  item: UploadItem;
  onRemove: (key: string) => void;
  onRetry: (key: string) => void;
}) {
  const { t } = useTranslation();
  const problemText = useProblemText();
  const failed = item.status === 'error';
  return (
    <Paper
      withBorder
      radius="sm"
      p={4}
      className={`cc-upload-item cc-upload-${item.kind}${failed ? ' cc-upload-failed' : ''}`}
      data-testid="upload-item"
      data-kind={item.kind}
      data-status={item.status}
      title={item.file.name}
    >
      <Group gap={6} wrap="nowrap" align="center">
        {item.kind === 'image' && item.previewUrl ? (
          <Image
            src={item.previewUrl}
            alt={item.file.name}
            w={48}
            h={48}
            radius="xs"
            fit="cover"
            data-testid="upload-thumbnail"
          />
        ) : (
          <PaperclipIcon size={16} />
        )}
        <div className="cc-upload-text">
          <Text size="xs" truncate fw={500}>
            {item.file.name}
          </Text>
          <Text
            size="xs"
            c={failed ? 'red' : 'dimmed'}
            truncate
            data-testid={failed ? 'upload-error' : undefined}
          >
            {failed && item.problem
              ? problemText(item.problem)
              : item.status === 'uploading'
                ? t('upload.uploading', { percent: Math.round(item.progress * 100) })
                : formatBytes(item.file.size)}
          </Text>
        </div>
        <ItemActions item={item} onRemove={onRemove} onRetry={onRetry} />
      </Group>
      {item.status === 'uploading' && (
        <Progress
          value={Math.max(2, item.progress * 100)}
          size="xs"
          mt={4}
          animated={item.progress >= 0.95}
          aria-label={t('upload.progress', { name: item.file.name })}
          data-testid="upload-progress"
        />
      )}
    </Paper>
  );
}

/** The files of the next question: thumbnails of images, chips of files, each with progress and remove. */
export function UploadList({
  items,
  permissions,
  onRemove,
  onRetry,
}: {
  items: UploadItem[];
  permissions: UploadPermissions;
  onRemove: (key: string) => void;
  onRetry: (key: string) => void;
}) {
  const { t } = useTranslation();
  if (!items.length) return null;
  return (
    <div className="cc-upload-list" data-testid="upload-list" role="list" aria-label={t('upload.listLabel')}>
      {items.map((item) => (
        <div role="listitem" key={item.key}>
          <UploadCard item={item} onRemove={onRemove} onRetry={onRetry} />
        </div>
      ))}
      {permissions.images && (
        <Text size="xs" c="dimmed" className="cc-upload-hint">
          {t('upload.hint', { max: MAX_IMAGES_PER_ASK })}
        </Text>
      )}
    </div>
  );
}
