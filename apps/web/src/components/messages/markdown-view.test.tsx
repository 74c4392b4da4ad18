import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { i18n } from '../../i18n';
import { loadMarkdownEngine } from '../../lib/markdown/load-engine';
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
