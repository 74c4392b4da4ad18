import { describe, expect, it } from 'vitest';
import type { ConversationHistory, WebChatMessage } from '@cc/contracts';
import { exportFileName, historyMarkdown } from './export.service';

describe('exportFileName', () => {
  it('turns line breaks and tabs into spaces and drops other control and invisible characters', () => {
    expect(exportFileName('Plan\nfor\tQ3', 'md')).toBe('Plan for Q3.md');
    expect(exportFileName('in\u202Evoice\u0000 draft\u200B', 'json')).toBe('invoice draft.json');
  });

  it('replaces path and reserved characters and falls back to a plain name', () => {
    expect(exportFileName('a/b\\c:d*e?"f"<g>|h', 'md')).toBe('a b c d e f g h.md');
    expect(exportFileName('\u200B\u0001 ', 'md')).toBe('conversation.md');
    expect(exportFileName(null, 'json')).toBe('conversation.json');
  });

  it('keeps at most 80 characters', () => {
    expect(exportFileName('x'.repeat(200), 'md')).toBe(`${'x'.repeat(80)}.md`);
  });

  it('never cuts an emoji in half at the 80th character (the download header could not be written)', () => {
    const name = exportFileName(`${'a'.repeat(79)}😀b`, 'md');
    expect(name).toBe(`${'a'.repeat(79)}.md`);
    expect(() => encodeURIComponent(name)).not.toThrow();
  });
});

describe('historyMarkdown', () => {
  const history = (mapping: ConversationHistory['mapping'], current_node: string): ConversationHistory => ({
    _id: 'c1',
    source: 'openai_web',
    title: 'Pictures',
    create_time: null,
    update_time: null,
    current_node,
    current_model: 'gpt_4',
    mapping,
  });
  const image = (id: string) => ({
    content_type: 'image_asset_pointer' as const,
    asset_pointer: `file-service://${id}`,
    size_bytes: 10,
    width: 1,
    height: 1,
  });
  /** The first question of a web conversation, of images, files and text. */
  const question = (
    parts: (string | ReturnType<typeof image>)[],
    more: Partial<WebChatMessage> = {},
  ): WebChatMessage => ({
    id: 'q',
    source: 'openai_web',
    role: 'user',
    parent: null,
    children: [],
    content: { content_type: 'multimodal_text', parts },
    ...more,
  });

  it('keeps a question with only images and files, noting each by name', () => {
    const md = historyMarkdown(
      history(
        {
          q: question([image('file-1'), image('file-2'), ''], {
            children: ['a'],
            metadata: {
              attachments: [
                { id: 'file-1', name: 'cat\n.png', size: 10 },
                { id: 'file-3', name: 'notes.pdf', size: 5 },
              ],
            },
          }),
          a: {
            id: 'a',
            source: 'openai_web',
            role: 'assistant',
            model: 'gpt-4',
            parent: 'q',
            children: [],
            content: { content_type: 'text', parts: ['Two cats.'] },
          },
        },
        'a',
      ),
    );
    expect(md).toBe(
      '# Pictures\n\n## User\n\n[image: cat .png]\n[image]\n[file: notes.pdf]\n\n' +
        '## Assistant (gpt-4)\n\nTwo cats.\n',
    );
  });

  it('puts the notes of a question with text above its text, as the images are shown', () => {
    const md = historyMarkdown(
      history(
        {
          q: question([image('file-1'), 'What is this?']),
        },
        'q',
      ),
    );
    expect(md).toBe('# Pictures\n\n## User\n\n[image]\n\nWhat is this?\n');
  });
});
