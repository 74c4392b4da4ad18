import { notifications } from '@mantine/notifications';
import { memo, useContext, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { whenIdle } from '../../lib/idle';
import { IncrementalBlockSplitter } from '../../lib/markdown/blocks';
import type { MarkdownRenderer } from '../../lib/markdown/engine';
import { useMarkdownEngine } from '../../lib/markdown/load-engine';
import { REMOTE_IMAGE_ATTR, showLoadedImages, showRemoteImage } from '../../lib/markdown/remote-images';
import { getRenderer } from '../../lib/markdown/renderer-cache';
import { DeferMarkdownContext } from './conversation-context';

interface BlockProps {
  renderer: MarkdownRenderer;
  block: string;
  /** Remote images the reader loaded in this view: shown again when the block renders anew. */
  loadedImages: ReadonlySet<string>;
}

function HtmlBlock({ html, loadedImages }: { html: string; loadedImages: ReadonlySet<string> }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => showLoadedImages(ref.current, loadedImages), [html, loadedImages]);
  // Each block takes its direction from its own first letter: a reply can mix right-to-left and left-to-right text.
  return <div ref={ref} className="cc-md-block" dir="auto" dangerouslySetInnerHTML={{ __html: html }} />;
}

const FinishedBlock = memo(function FinishedBlock({ renderer, block, loadedImages }: BlockProps) {
  return <HtmlBlock html={renderer.renderFinishedBlock(block)} loadedImages={loadedImages} />;
});

const TailBlock = memo(function TailBlock({ renderer, block, loadedImages }: BlockProps) {
  const html = useMemo(() => renderer.renderBlock(block), [renderer, block]);
  return <HtmlBlock html={html} loadedImages={loadedImages} />;
});

/** A deferred row renders its markdown at the latest this long after it was rendered plainly. */
const DEFERRED_MARKDOWN_MAX_WAIT_MS = 500;

async function copyText(text: string): Promise<void> {
  await navigator.clipboard.writeText(text);
}

/**
 * Sanitised markdown with math and highlighted code. The text is split into blocks; finished blocks render once
 * (memoised HTML, untouched DOM), only the last block re-renders while an answer streams. Plain text shows until
 * the lazily loaded pipeline arrives.
 */
export function MarkdownView({
  text,
  onSandboxLink,
}: {
  text: string;
  onSandboxLink?: (path: string) => void;
}) {
  const { t } = useTranslation();
  const engine = useMarkdownEngine();
  const copyLabel = t('render.copy');
  const remoteImageLabel = t('render.remoteImage', { host: '{host}' });
  const renderer = useMemo(
    () => (engine ? getRenderer(engine, { copy: copyLabel, remoteImage: remoteImageLabel }) : null),
    [engine, copyLabel, remoteImageLabel],
  );
  // Images from other hosts load only when the reader clicks their placeholder (never just by being viewed).
  const [loadedImages] = useState(() => new Set<string>());
  // One splitter per view: it keeps the finished blocks of the growing text between renders.
  const [splitter] = useState(() => new IncrementalBlockSplitter());
  const blocks = useMemo(() => splitter.update(text), [splitter, text]);
  // A row outside the list's view shows its text plainly until the browser is idle (or the row comes into view);
  // once rendered, it stays rendered.
  const deferred = useContext(DeferMarkdownContext);
  const [shown, setShown] = useState(!deferred);
  const waiting = deferred && !shown && renderer !== null;
  // Came into view: rendered from now on (state adjusted while rendering, no extra pass).
  if (!deferred && !shown) setShown(true);
  useEffect(() => {
    if (!waiting) return;
    return whenIdle(() => setShown(true), DEFERRED_MARKDOWN_MAX_WAIT_MS);
  }, [waiting]);

  const handleClick = (event: MouseEvent<HTMLDivElement>) => {
    const remoteImage = (event.target as Element).closest?.(`button[${REMOTE_IMAGE_ATTR}]`);
    if (remoteImage) {
      // The placeholder may sit inside a link: loading the image must not follow it.
      event.preventDefault();
      loadedImages.add(remoteImage.getAttribute(REMOTE_IMAGE_ATTR) ?? '');
      showRemoteImage(remoteImage);
      return;
    }
    const sandbox = (event.target as Element).closest?.('[data-sandbox-path]');
    if (sandbox && onSandboxLink) {
      event.preventDefault();
      onSandboxLink(sandbox.getAttribute('data-sandbox-path') ?? '');
      return;
    }
    const button = (event.target as Element).closest?.('button[data-copy-code]');
    if (!button) return;
    const code = button.closest('.cc-code')?.querySelector('pre code')?.textContent ?? '';
    copyText(code).then(
      () => notifications.show({ color: 'green', message: t('render.copied'), autoClose: 1500 }),
      () => notifications.show({ color: 'red', message: t('render.copyFailed'), autoClose: 3000 }),
    );
  };

  if (!renderer || (deferred && !shown))
    return (
      <div className="cc-plain-text" dir="auto">
        {text}
      </div>
    );
  return (
    <div className="cc-markdown" dir="auto" onClick={handleClick}>
      {blocks.finished.map((block, index) => (
        <FinishedBlock key={index} renderer={renderer} block={block} loadedImages={loadedImages} />
      ))}
      {blocks.tail && <TailBlock renderer={renderer} block={blocks.tail} loadedImages={loadedImages} />}
    </div>
  );
}
