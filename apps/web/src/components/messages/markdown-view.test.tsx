import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import { loadMarkdownEngine } from '../../lib/markdown/load-engine';
import { DeferMarkdownContext } from './conversation-context';
import { MarkdownView } from './markdown-view';

beforeEach(async () => {
  await i18n.changeLanguage('en-US');
  await loadMarkdownEngine();
});
afterEach(cleanup);

const REMOTE = 'https://evil.example/pixel.png?q=secret';
const srcs = (root: HTMLElement) => [...root.querySelectorAll('img')].map((img) => img.getAttribute('src'));

describe('MarkdownView images', () => {
  it('loads an image from another host only when its placeholder is clicked, and keeps it while the answer grows', async () => {
    const own = '/api/files/openai-web/file-abc/content';
    const { container, rerender } = render(<MarkdownView text={`![chart](${own})\n\n![pixel](${REMOTE})`} />);
    const placeholder = await screen.findByRole('button', { name: 'Image from evil.example: click to load' });
    expect(srcs(container)).toEqual([own]);

    placeholder.focus();
    fireEvent.click(placeholder);
    expect(srcs(container)).toEqual([own, REMOTE]);
    expect(container.querySelector(`img[src="${REMOTE}"]`)?.getAttribute('alt')).toBe('pixel');
    expect(screen.queryByRole('button', { name: /evil\.example/ })).toBeNull();
    // Focus stays on what replaced the button (keyboard users keep their place).
    expect(document.activeElement?.getAttribute('src')).toBe(REMOTE);

    // The streamed block renders again: the image the reader asked for stays, a new one waits for its click.
    rerender(
      <MarkdownView text={`![chart](${own})\n\n![pixel](${REMOTE}) ![more](https://other.example/x.png)`} />,
    );
    expect(srcs(container)).toEqual([own, REMOTE]);
    expect(screen.getByRole('button', { name: 'Image from other.example: click to load' })).toBeTruthy();
  });

  it('names the host in Chinese too', async () => {
    await act(() => i18n.changeLanguage('zh-CN'));
    render(<MarkdownView text={`![pixel](${REMOTE})`} />);
    expect(await screen.findByRole('button', { name: '来自 evil.example 的图片：点击加载' })).toBeTruthy();
  });
});

describe('MarkdownView direction', () => {
  const ARABIC = 'ما هو الطقس اليوم؟ (سؤال مهم!)';

  it('lets a message and each of its blocks take the direction of their own text, code staying left to right', () => {
    const { container } = render(
      <MarkdownView
        text={`${ARABIC}\n\nEnglish after it.\n\n\`\`\`js\nconst a = 1;\n\`\`\`\n\n    indented();`}
      />,
    );
    const root = container.querySelector('.cc-markdown');
    expect(root?.getAttribute('dir')).toBe('auto');
    const blocks = [...container.querySelectorAll('.cc-md-block')];
    expect(blocks.length).toBeGreaterThan(1);
    for (const block of blocks) expect(block.getAttribute('dir')).toBe('auto');
    expect(container.querySelector('.cc-md-block p')?.textContent).toBe(ARABIC);
    const pres = [...container.querySelectorAll('pre')];
    expect(pres).toHaveLength(2);
    for (const pre of pres) expect(pre.getAttribute('dir')).toBe('ltr');
    expect(container.querySelector('.cc-code')?.getAttribute('dir')).toBe('ltr');
  });

  it('gives the plain text shown before the renderer arrives the direction of its text too', () => {
    const { container } = render(
      <DeferMarkdownContext.Provider value>
        <MarkdownView text={ARABIC} />
      </DeferMarkdownContext.Provider>,
    );
    const plain = container.querySelector('.cc-plain-text');
    expect(plain?.textContent).toBe(ARABIC);
    expect(plain?.getAttribute('dir')).toBe('auto');
  });
});
