import { beforeAll, describe, expect, it } from 'vitest';
import { createMarkdownRenderer } from './engine';
import type { MarkdownRenderer } from './engine';
import { XSS_CORPUS } from '../../test/xss-corpus';

let renderer: MarkdownRenderer;
beforeAll(() => {
  renderer = createMarkdownRenderer({ copy: 'Copy' });
});

function mount(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('markdown engine', () => {
  it('renders markdown, math and highlighted code with a copy button', () => {
    const html = renderer.renderBlock('# Hi\n\nInline \\(a^2\\) and $b$.\n\n```python\nprint("x")\n```');
    const root = mount(html);
    expect(root.querySelector('h1')?.textContent).toBe('Hi');
    expect(root.querySelectorAll('.katex').length).toBe(2);
    expect(root.querySelector('pre code.language-python .hljs-built_in')).not.toBeNull();
    expect(root.querySelector('button.cc-copy')?.getAttribute('aria-label')).toBe('Copy');
  });

  it('renders display math and keeps "$5 and $6" as text', () => {
    const root = mount(renderer.renderBlock('$$\n\\frac{1}{2}\n$$\n\nIt costs $5 and $6.'));
    expect(root.querySelector('.katex-block .katex-display')).not.toBeNull();
    expect(root.textContent).toContain('$5 and $6');
  });

  it('opens links in a new tab without opener and turns sandbox links inert', () => {
    const root = mount(renderer.renderBlock('[a](https://example.com) [f](sandbox:/mnt/data/x.csv)'));
    const link = root.querySelector('a[href="https://example.com"]');
    expect(link?.getAttribute('target')).toBe('_blank');
    expect(link?.getAttribute('rel')).toContain('noopener');
    const sandbox = root.querySelector('[data-sandbox-path]');
    expect(sandbox?.getAttribute('data-sandbox-path')).toBe('/mnt/data/x.csv');
    expect(sandbox?.getAttribute('href')).toBe('#');
    expect(sandbox?.hasAttribute('target')).toBe(false);
  });

  it.each(XSS_CORPUS)('sanitises %s', (payload) => {
    const root = mount(renderer.renderBlock(payload));
    for (const el of root.querySelectorAll('*')) {
      expect(['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'FORM', 'INPUT', 'STYLE']).not.toContain(el.tagName);
      for (const attr of el.attributes) {
        expect(attr.name.startsWith('on')).toBe(false);
        if (attr.name === 'href' || attr.name === 'src' || attr.name === 'action' || attr.name === 'data') {
          expect(attr.value.replace(/\s/g, '').toLowerCase()).not.toMatch(/^(javascript|data:text\/html)/);
        }
        if (attr.name === 'style') expect(el.closest('.katex')).not.toBeNull();
      }
    }
  });

  it('memoises finished blocks', () => {
    const a = renderer.renderFinishedBlock('**same**');
    expect(renderer.renderFinishedBlock('**same**')).toBe(a);
  });
});
