import type { ChatMessage, ConversationHistory } from '@cc/contracts';
import { MODEL_DISPLAY } from '@cc/contracts';
import type { AnyModel } from '@cc/contracts';
import { formatDateTime } from '../format';
import { displayTypeOf, getCurrentPath, groupMessages, splitGroup, textOf } from './history';

type Translate = (key: string, options?: Record<string, unknown>) => string;

function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}

function fence(text: string, language = ''): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}

function heading(text: string): string {
  const first = (text.split('\n').find((l) => l.trim()) ?? '').trim();
  return first.length > 77 ? `${first.slice(0, 77)}…` : first;
}

/**
 * The conversation's current path as Markdown: title, date, model, then each turn. Citations stay as their
 * plain text (no HTML), tool use is summarised, every code/output pair is kept.
 */
export function conversationToMarkdown(history: ConversationHistory, t: Translate, language: string): string {
  const messages = getCurrentPath(history.mapping, history.current_node);
  const model = history.current_model;
  const modelName = MODEL_DISPLAY[model as AnyModel]?.label ?? model ?? '';
  const lines: string[] = [
    `# ${history.title || t('conversations.untitled')}`,
    '',
    t('common.labelled', { label: t('export.date'), text: formatDateTime(history.create_time, language) }),
    '',
    t('common.labelled', { label: t('export.model'), text: modelName }),
    '',
    '---',
    '',
  ];
  let turn = 0;
  for (const group of groupMessages(messages)) {
    if (group.role === 'user') {
      turn += 1;
      lines.push(
        `## [${turn}] ${heading(group.messages.map(textOf).join(''))}`,
        '',
        `### ${t('export.user')}`,
        '',
      );
    } else {
      lines.push(`### ${t('export.assistant')}`, '');
    }
    const attachments = group.messages.flatMap((m: ChatMessage) =>
      m.source === 'openai_web' ? (m.metadata?.attachments ?? []) : [],
    );
    if (attachments.length) {
      lines.push(
        quote([`${t('export.attachments')}:`, ...attachments.map((a) => `- ${a.name}`)].join('\n')),
        '',
      );
    }
    for (const bucket of splitGroup(group, () => undefined)) {
      const type = displayTypeOf(bucket, model);
      const text = bucket.messages.map(textOf).join('');
      switch (type) {
        case 'text':
        case 'multimodal_text':
        case 'dalle_result':
          if (text.trim()) lines.push(text, '');
          break;
        case 'code':
          for (const m of bucket.messages) {
            const content = m.source === 'openai_web' ? m.content : null;
            if (content?.content_type === 'code')
              lines.push(quote(`${t('export.usingInterpreter')}:`), '', fence(content.text, 'python'), '');
            else if (content) lines.push(quote(`${t('export.output')}:`), '', fence(textOf(m)), '');
          }
          break;
        case 'plugin':
          lines.push(quote(t('export.usedPlugin')), '');
          break;
        case 'dalle_prompt':
          lines.push(quote(`${t('export.dallePrompts')}:`), '', fence(text, 'json'), '');
          break;
        case 'browser':
        case 'myfiles_browser':
          break;
      }
    }
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/** A file name safe on every system. */
export function safeFileName(name: string): string {
  const printable = [...name].map((ch) => (ch.charCodeAt(0) < 32 ? ' ' : ch)).join('');
  const cleaned = printable
    .replace(/[\\/:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);
  return cleaned || 'conversation';
}

export function downloadText(fileName: string, text: string, type = 'text/markdown;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
