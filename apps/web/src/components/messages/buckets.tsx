import { Badge, Box, Group, Image, SimpleGrid, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ChatMessage, ImagePart, WebChatMessage } from '@cc/contracts';
import { downloadThroughServer, resolveAssetUrl } from '../../lib/assets';
import { textOf } from '../../lib/conversation/history';
import type { DisplayType, MessageBucket } from '../../lib/conversation/history';
import { applyCitations, stripCitationMarkers } from '../../lib/markdown/citations';
import { CodeIcon, ExternalIcon, GlobeIcon, ImageIcon, PuzzleIcon } from '../icons';
import { apiPaths } from '../../config/paths';
import { useConversationId, useShareToken } from './conversation-context';
import { MarkdownView } from './markdown-view';

/**
 * Text of a text bucket: the messages' texts; a web answer's browsing citations become numbered links (as HTML for
 * the markdown view) and the provider's raw markers never show.
 */
export function bucketText(bucket: MessageBucket, withCitations: boolean): string {
  return bucket.messages
    .map((m) => {
      const text = textOf(m);
      if (m.source !== 'openai_web' || m.role !== 'assistant') return text;
      return withCitations ? applyCitations(text, m.metadata?.citations) : stripCitationMarkers(text);
    })
    .join('');
}

function imageParts(message: ChatMessage): ImagePart[] {
  if (message.source !== 'openai_web' || message.content?.content_type !== 'multimodal_text') return [];
  return message.content.parts.filter((p): p is ImagePart => typeof p === 'object' && p !== null);
}

function ImageGrid({
  pointers,
  alt,
  thumbnails = false,
}: {
  pointers: { pointer: string; title?: string | null }[];
  alt: string;
  /** Small square thumbnails in a row (the images of a user's question). */
  thumbnails?: boolean;
}) {
  const shareToken = useShareToken();
  const urls = pointers
    .map((p) => ({ url: resolveAssetUrl(p.pointer, shareToken), title: p.title }))
    .filter((p): p is { url: string; title: string | null | undefined } => p.url !== null);
  if (urls.length === 0) return null;
  if (thumbnails) {
    return (
      <Group gap="xs" className="cc-message-thumbnails">
        {urls.map(({ url, title }) => (
          <a key={url} href={url} target="_blank" rel="noopener noreferrer" aria-label={title ?? alt}>
            <Image
              src={url}
              alt={title ?? alt}
              radius="sm"
              w={120}
              h={120}
              fit="cover"
              loading="lazy"
              data-testid="message-image"
            />
          </a>
        ))}
      </Group>
    );
  }
  return (
    <SimpleGrid
      cols={{ base: 1, sm: urls.length > 1 ? 2 : 1 }}
      maw={urls.length > 1 ? 640 : 420}
      spacing="xs"
    >
      {urls.map(({ url, title }) => (
        <a key={url} href={url} target="_blank" rel="noopener noreferrer" aria-label={title ?? alt}>
          <Image
            src={url}
            alt={title ?? alt}
            radius="sm"
            loading="lazy"
            fit="contain"
            mah={360}
            data-testid="message-image"
          />
        </a>
      ))}
    </SimpleGrid>
  );
}

function Disclosure({
  icon,
  label,
  children,
  open = true,
}: {
  icon: React.ReactNode;
  label: React.ReactNode;
  children: React.ReactNode;
  open?: boolean;
}) {
  return (
    <details className="cc-disclosure" open={open}>
      <summary>
        <Group gap={6} component="span" wrap="nowrap">
          {icon}
          <span>{label}</span>
        </Group>
      </summary>
      <div className="cc-disclosure-body">{children}</div>
    </details>
  );
}

/** Opens a `sandbox:` file through the server: the message whose text names the path is the one asked. */
function useSandboxOpener(bucket: MessageBucket): ((path: string) => void) | undefined {
  const conversationId = useConversationId();
  if (!conversationId) return undefined;
  return (path: string) => {
    const message = bucket.messages.find((m) => textOf(m).includes(`sandbox:${path}`)) ?? bucket.messages[0];
    if (!message) return;
    const name = path.split('/').pop() || 'file';
    // Failures are reported by the API client (toast); nothing is left to do here.
    downloadThroughServer(apiPaths.interpreterDownload(conversationId, message.id, path), name).catch(
      () => undefined,
    );
  };
}

function TextBucket({ bucket, markdown }: { bucket: MessageBucket; markdown: boolean }) {
  const { t } = useTranslation();
  const text = bucketText(bucket, markdown);
  const openSandbox = useSandboxOpener(bucket);
  const images = bucket.messages.flatMap(imageParts);
  return (
    <Stack gap="xs">
      {images.length > 0 && (
        <ImageGrid
          pointers={images.map((p) => ({ pointer: p.asset_pointer }))}
          alt={t('render.uploadedImage')}
          thumbnails={bucket.messages[0]?.role === 'user'}
        />
      )}
      {markdown ? (
        <MarkdownView text={text} onSandboxLink={openSandbox} />
      ) : (
        <div className="cc-plain-text" dir="auto">
          {text}
        </div>
      )}
    </Stack>
  );
}

function outputImages(message: WebChatMessage): string[] {
  const aggregate = message.metadata?.aggregate_result as
    { messages?: { message_type?: string; image_url?: string }[] } | undefined;
  return (aggregate?.messages ?? [])
    .filter((m) => m.message_type === 'image' && typeof m.image_url === 'string')
    .map((m) => m.image_url as string);
}

/** Code interpreter: every code / output pair (not just the first), stderr in red, output images. */
function CodeBucket({ bucket }: { bucket: MessageBucket }) {
  const { t } = useTranslation();
  return (
    <Disclosure icon={<CodeIcon size={14} />} label={t('render.usingCodeInterpreter')}>
      <Stack gap="xs">
        {bucket.messages.map((m) => {
          if (m.source !== 'openai_web' || !m.content) return null;
          const c = m.content;
          if (c.content_type === 'code') {
            return (
              <MarkdownView
                key={m.id}
                text={`\`\`\`${c.language && c.language !== 'unknown' ? c.language : 'python'}\n${c.text}\n\`\`\``}
              />
            );
          }
          if (c.content_type === 'execution_output' || c.content_type === 'stderr') {
            const output = c.text.replace(/<<ImageDisplayed>>/g, '').trim();
            const images = outputImages(m);
            return (
              <Stack key={m.id} gap={4}>
                {output && (
                  <Box className={c.content_type === 'stderr' ? 'cc-result cc-result-error' : 'cc-result'}>
                    <Text size="xs" className="cc-result-label">
                      {t('render.result')}
                    </Text>
                    <pre>{output}</pre>
                  </Box>
                )}
                {images.length > 0 && (
                  <ImageGrid
                    pointers={images.map((pointer) => ({ pointer }))}
                    alt={t('render.outputImage')}
                  />
                )}
              </Stack>
            );
          }
          return (
            <div key={m.id} className="cc-plain-text" dir="auto">
              {textOf(m)}
            </div>
          );
        })}
      </Stack>
    </Disclosure>
  );
}

function parseCall(text: string): { command: string; arg: string } {
  const line = text.split('\n').find((l) => l.trim() && !l.trim().startsWith('#')) ?? '';
  const m = /^\s*(\w+)\((.*)\)\s*$/s.exec(line);
  if (!m) return { command: '', arg: line };
  const raw = (m[2] ?? '').trim();
  let arg = raw;
  try {
    arg = String(JSON.parse(raw.replace(/^'(.*)'$/s, '"$1"')));
  } catch {
    arg = raw.replace(/^["']|["']$/g, '');
  }
  return { command: m[1] ?? '', arg };
}

/** Browsing: one line per action (search, click, scroll, reading, error) with the raw text on demand. */
function BrowserBucket({ bucket }: { bucket: MessageBucket }) {
  const { t } = useTranslation();
  const shareToken = useShareToken();
  return (
    <Disclosure icon={<GlobeIcon size={14} />} label={t('render.browsingHistory')}>
      <Stack gap={4}>
        {bucket.messages.map((m) => {
          if (m.source !== 'openai_web') return null;
          const c = m.content;
          let line: React.ReactNode = null;
          if (m.role === 'assistant') {
            const { command, arg } = parseCall(textOf(m));
            if (command === 'search') {
              line = (
                <>
                  {t('render.browserSearch')}{' '}
                  <a
                    href={`https://www.bing.com/search?q=${encodeURIComponent(arg)}`}
                    target="_blank"
                    rel="noopener noreferrer"
                  >
                    “{arg}”
                  </a>
                </>
              );
            } else if (command === 'click' || command === 'open_url')
              line = `${t('render.browserClick')} ${arg}`;
            else if (command === 'scroll') line = t('render.browserScroll');
            else if (command === 'quote' || command === 'quote_lines') line = null;
            else line = textOf(m);
          } else if (c?.content_type === 'tether_browsing_display') line = t('render.browserReading');
          else if (c?.content_type === 'tether_quote') {
            line = c.url ? (
              <a
                href={resolveAssetUrl(c.url, shareToken) ?? undefined}
                target="_blank"
                rel="noopener noreferrer"
              >
                {c.title ?? c.url} <ExternalIcon size={12} />
              </a>
            ) : (
              (c.title ?? '')
            );
          } else if (c?.content_type === 'system_error')
            line = (
              <Text c="red" size="sm" component="span">
                {t('common.labelled', { label: t('render.browserError'), text: textOf(m) })}
              </Text>
            );
          else line = textOf(m);
          if (line === null) return null;
          const raw = textOf(m);
          return (
            <div key={m.id} className="cc-browser-line">
              <Text size="sm" component="span">
                {line}
              </Text>
              {raw && (
                <details className="cc-inline-details">
                  <summary>{t('render.details')}</summary>
                  <pre>{raw}</pre>
                </details>
              )}
            </div>
          );
        })}
      </Stack>
    </Disclosure>
  );
}

/** Plugins: request / response pairs, collapsed. */
function PluginBucket({ bucket }: { bucket: MessageBucket }) {
  const { t } = useTranslation();
  return (
    <Stack gap={4}>
      {bucket.messages.map((m) => {
        const name =
          m.source === 'openai_web'
            ? ((m.role === 'assistant' ? m.metadata?.recipient : m.author_name) ??
              m.metadata?.invoked_plugin?.namespace ??
              'plugin')
            : 'plugin';
        const isRequest = m.role === 'assistant';
        return (
          <Disclosure
            key={m.id}
            open={false}
            icon={<PuzzleIcon size={14} />}
            label={isRequest ? t('render.pluginRequest', { name }) : t('render.pluginResponse', { name })}
          >
            <pre className="cc-raw">{textOf(m)}</pre>
          </Disclosure>
        );
      })}
    </Stack>
  );
}

function parsePrompts(text: string): string[] {
  try {
    const value = JSON.parse(text) as { prompt?: unknown; prompts?: unknown };
    if (Array.isArray(value.prompts)) return value.prompts.filter((p): p is string => typeof p === 'string');
    if (typeof value.prompt === 'string') return [value.prompt];
  } catch {
    // still streaming: no complete JSON yet
  }
  return [];
}

function DallePromptBucket({ bucket }: { bucket: MessageBucket }) {
  const { t } = useTranslation();
  const prompts = bucket.messages.flatMap((m) => parsePrompts(textOf(m)));
  return (
    <Disclosure
      icon={<ImageIcon size={14} />}
      label={prompts.length ? t('render.dalleCreated', { count: prompts.length }) : t('render.dalleCreating')}
    >
      <Stack gap={4}>
        {prompts.map((prompt, i) => (
          <Group key={i} gap={6} wrap="nowrap" align="flex-start">
            {prompts.length > 1 && (
              <Badge size="sm" variant="light">
                {i + 1}
              </Badge>
            )}
            <Text size="sm" dir="auto">
              {prompt}
            </Text>
          </Group>
        ))}
      </Stack>
    </Disclosure>
  );
}

function DalleResultBucket({ bucket }: { bucket: MessageBucket }) {
  const images = bucket.messages.flatMap(imageParts);
  const text = bucket.messages.map(textOf).join('');
  return (
    <Stack gap="xs">
      <ImageGrid
        pointers={images.map((p) => ({ pointer: p.asset_pointer, title: p.metadata?.dalle?.prompt ?? null }))}
        alt="DALL·E"
      />
      {text && <MarkdownView text={text} />}
    </Stack>
  );
}

function MyFilesBucket({ bucket }: { bucket: MessageBucket }) {
  const { t } = useTranslation();
  return (
    <Disclosure open={false} icon={<CodeIcon size={14} />} label={t('render.myFilesBrowser')}>
      <Stack gap={4}>
        {bucket.messages.map((m) => (
          <pre key={m.id} className="cc-raw">
            {textOf(m)}
          </pre>
        ))}
      </Stack>
    </Disclosure>
  );
}

export function BucketView({
  bucket,
  type,
  markdown,
}: {
  bucket: MessageBucket;
  type: DisplayType;
  markdown: boolean;
}) {
  switch (type) {
    case 'text':
    case 'multimodal_text':
      return <TextBucket bucket={bucket} markdown={markdown} />;
    case 'code':
      return <CodeBucket bucket={bucket} />;
    case 'browser':
      return <BrowserBucket bucket={bucket} />;
    case 'plugin':
      return <PluginBucket bucket={bucket} />;
    case 'dalle_prompt':
      return <DallePromptBucket bucket={bucket} />;
    case 'dalle_result':
      return <DalleResultBucket bucket={bucket} />;
    case 'myfiles_browser':
      return <MyFilesBucket bucket={bucket} />;
  }
}
