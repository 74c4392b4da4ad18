import { ActionIcon, Group, Tooltip } from '@mantine/core';
import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import type { ConversationHistory } from '@cc/contracts';
import { conversationToMarkdown, downloadText, safeFileName } from '../../lib/conversation/export';
import { getCurrentPath, groupMessages } from '../../lib/conversation/history';
import { loadMarkdownEngine } from '../../lib/markdown/load-engine';
import { DownloadIcon, PrinterIcon } from '../icons';
import { PrintableMessages } from './message-list';

/** Export as Markdown (a file) and as PDF (every row rendered into a print-only container, then print()). */
export function ExportActions({
  history,
  userMarkdown,
}: {
  history: ConversationHistory;
  userMarkdown: boolean;
}) {
  const { t, i18n } = useTranslation();
  const [printing, setPrinting] = useState(false);

  useEffect(() => {
    if (!printing) return;
    const done = () => setPrinting(false);
    window.addEventListener('afterprint', done);
    // Two frames: the rows (and their markdown) are in the DOM before the print dialog takes its snapshot.
    const id = requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        window.print();
        // Browsers without afterprint (and headless ones) return from print() when done.
        setTimeout(done, 500);
      }),
    );
    return () => {
      cancelAnimationFrame(id);
      window.removeEventListener('afterprint', done);
    };
  }, [printing]);

  const title = history.title || t('conversations.untitled');
  const handleMarkdown = () => {
    downloadText(`${safeFileName(title)}.md`, conversationToMarkdown(history, t, i18n.language));
  };
  const handlePrint = () => {
    void loadMarkdownEngine().then(() => setPrinting(true));
  };

  return (
    <Group gap={4} className="hide-in-print">
      <Tooltip label={t('export.markdown')}>
        <ActionIcon
          variant="subtle"
          onClick={handleMarkdown}
          aria-label={t('export.markdown')}
          data-testid="export-markdown"
        >
          <DownloadIcon size={16} />
        </ActionIcon>
      </Tooltip>
      <Tooltip label={t('export.pdf')}>
        <ActionIcon
          variant="subtle"
          onClick={handlePrint}
          aria-label={t('export.pdf')}
          data-testid="export-pdf"
        >
          <PrinterIcon size={16} />
        </ActionIcon>
      </Tooltip>
      {printing &&
        createPortal(
          <div id="print-content">
            <h1 className="cc-print-title">{title}</h1>
            <PrintableMessages
              groups={groupMessages(getCurrentPath(history.mapping, history.current_node))}
              model={history.current_model}
              userMarkdown={userMarkdown}
            />
          </div>,
          document.body,
        )}
    </Group>
  );
}
