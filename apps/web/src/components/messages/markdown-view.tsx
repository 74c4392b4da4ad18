import { notifications } from '@mantine/notifications';
import { memo, useMemo, useState } from 'react';
import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { IncrementalBlockSplitter } from '../../lib/markdown/blocks';
import type { MarkdownRenderer } from '../../lib/markdown/engine';
import { useMarkdownEngine } from '../../lib/markdown/load-engine';
import { getRenderer } from '../../lib/markdown/renderer-cache';

const FinishedBlock = memo(function FinishedBlock({
  renderer,
  block,
}: {
  renderer: MarkdownRenderer;
  block: string;
}) {
  return (
    <div className="cc-md-block" dangerouslySetInnerHTML={{ __html: renderer.renderFinishedBlock(block) }} />
  );
});

const TailBlock = memo(function TailBlock({
  renderer,
  block,
}: {
  renderer: MarkdownRenderer;
  block: string;
}) {
  const html = useMemo(() => renderer.renderBlock(block), [renderer, block]);
  return <div className="cc-md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

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
  const renderer = useMemo(
    () => (engine ? getRenderer(engine, { copy: copyLabel }) : null),
    [engine, copyLabel],
  );
  // One splitter per view: it keeps the finished blocks of the growing text between renders.
  const [splitter] = useState(() => new IncrementalBlockSplitter());
  const blocks = useMemo(() => splitter.update(text), [splitter, text]);

  const handleClick = (event: MouseEvent<HTMLDivElement>) => {
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

  if (!renderer) return <div className="cc-plain-text">{text}</div>;
  return (
    <div className="cc-markdown" onClick={handleClick}>
      {blocks.finished.map((block, index) => (
        <FinishedBlock key={index} renderer={renderer} block={block} />
      ))}
      {blocks.tail && <TailBlock renderer={renderer} block={blocks.tail} />}
    </div>
  );
}
