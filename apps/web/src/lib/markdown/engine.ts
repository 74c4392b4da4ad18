import hljs from 'highlight.js/lib/common';
import katex from 'katex';
import markdownIt from 'markdown-it';
import type { MarkdownIt } from 'markdown-it';
import 'highlight.js/styles/github-dark.css';
import 'katex/dist/katex.min.css';
import { escapeHtml } from './citations';
import { replaceMathDelimiters } from './math';
import { mathPlugin } from './math-plugin';
import { sanitizeHtml } from './sanitize';

/** The heavy half of the rendering pipeline (markdown-it, KaTeX, highlight.js, DOMPurify), loaded lazily. */

export interface RendererLabels {
  /** Accessible label of a code block's copy button. */
  copy: string;
  /** Text of the button that stands for an image from another host, `{host}` standing for its host. */
  remoteImage: string;
}

export interface MarkdownRenderer {
  /** Sanitised HTML of one markdown block (math delimiters converted first). */
  renderBlock(markdown: string): string;
  /** Memoised renderBlock, for blocks that will not change again. */
  renderFinishedBlock(markdown: string): string;
}

const AUTO_HIGHLIGHT_LIMIT = 3000;

function renderMath(tex: string, displayMode: boolean): string {
  try {
    return katex.renderToString(tex, {
      displayMode,
      throwOnError: false,
      trust: false,
      strict: 'ignore',
      output: 'htmlAndMathml',
      maxExpand: 500,
      maxSize: 50,
    });
  } catch {
    return `<span class="katex-error">${escapeHtml(tex)}</span>`;
  }
}

function highlight(code: string, language: string): string {
  try {
    if (language && hljs.getLanguage(language)) {
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    }
    if (!language && code.length <= AUTO_HIGHLIGHT_LIMIT) return hljs.highlightAuto(code).value;
  } catch {
    // fall through to plain text
  }
  return escapeHtml(code);
}

function createMarkdownIt(labels: RendererLabels): MarkdownIt {
  const md = markdownIt({ html: true, linkify: true, typographer: false, breaks: false });
  mathPlugin(md, renderMath);
  md.renderer.rules.fence = (tokens, idx) => {
    const token = tokens[idx];
    if (!token) return '';
    const language = (token.info ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    const body = highlight(token.content, language);
    const lang = escapeHtml(language);
    return (
      `<div class="cc-code" dir="ltr"><div class="cc-code-header"><span class="cc-code-lang">${lang || 'text'}</span>` +
      `<button type="button" class="cc-copy" data-copy-code="" aria-label="${escapeHtml(labels.copy)}">${escapeHtml(labels.copy)}</button></div>` +
      `<pre dir="ltr"><code class="hljs${lang ? ` language-${lang}` : ''}">${body}</code></pre></div>\n`
    );
  };
  // Code reads left to right even inside a right-to-left message (whose blocks take `dir="auto"`).
  const codeBlock = md.renderer.rules.code_block;
  md.renderer.rules.code_block = (tokens, idx, options, env, self) => {
    tokens[idx]?.attrSet('dir', 'ltr');
    return codeBlock ? codeBlock(tokens, idx, options, env, self) : '';
  };
  return md;
}

const FINISHED_CACHE_LIMIT = 5000;

export function createMarkdownRenderer(labels: RendererLabels): MarkdownRenderer {
  const md = createMarkdownIt(labels);
  const cache = new Map<string, string>();
  const renderBlock = (markdown: string) =>
    sanitizeHtml(md.render(replaceMathDelimiters(markdown)), { remoteImageLabel: labels.remoteImage });
  return {
    renderBlock,
    renderFinishedBlock(markdown) {
      const hit = cache.get(markdown);
      if (hit !== undefined) return hit;
      const html = renderBlock(markdown);
      if (cache.size >= FINISHED_CACHE_LIMIT) {
        const oldest = cache.keys().next().value;
        if (oldest !== undefined) cache.delete(oldest);
      }
      cache.set(markdown, html);
      return html;
    },
  };
}
