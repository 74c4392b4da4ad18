import type { MarkdownIt, StateBlock, StateInline } from 'markdown-it';

export type MathRenderer = (tex: string, displayMode: boolean) => string;

/**
 * Inline `$…$` and block `$$…$$` (reference §2.7 rules): an opening `$` followed by a space is literal, a closing
 * `$` preceded by a space or followed by a digit is literal ("$5 and $6"), escaped `$` is skipped, `$$` inline is
 * literal. A block `$$` must start a line and runs to a line ending in `$$`.
 */
function mathInline(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  if (src[state.pos] !== '$') return false;
  const start = state.pos + 1;
  const literal = (text: string, nextPos: number) => {
    if (!silent) state.pending += text;
    state.pos = nextPos;
    return true;
  };
  const next = src[start];
  if (next === undefined || next === ' ' || next === '\t' || next === '\n') return literal('$', start);
  if (next === '$') return literal('$$', start + 1);
  let match = start;
  for (;;) {
    match = src.indexOf('$', match);
    if (match === -1) break;
    let pos = match - 1;
    while (src[pos] === '\\') pos -= 1;
    if ((match - pos) % 2 === 1) break;
    match += 1;
  }
  if (match === -1) return literal('$', start);
  const before = src[match - 1];
  const after = src[match + 1];
  if (before === ' ' || before === '\t' || (after !== undefined && after >= '0' && after <= '9')) {
    return literal('$', start);
  }
  if (!silent) {
    const token = state.push('math_inline', 'math', 0);
    token.markup = '$';
    token.content = src.slice(start, match);
  }
  state.pos = match + 1;
  return true;
}

function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  let pos = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  let max = state.eMarks[startLine] ?? 0;
  if (pos + 2 > max || state.src.slice(pos, pos + 2) !== '$$') return false;
  if (silent) return true;
  pos += 2;
  let firstLine = state.src.slice(pos, max);
  let lastLine = '';
  let found = false;
  if (firstLine.trim().endsWith('$$')) {
    firstLine = firstLine.trim().slice(0, -2);
    found = true;
  }
  let next = startLine;
  while (!found) {
    next += 1;
    if (next >= endLine) break;
    pos = (state.bMarks[next] ?? 0) + (state.tShift[next] ?? 0);
    max = state.eMarks[next] ?? 0;
    if (pos < max && (state.tShift[next] ?? 0) < state.blkIndent) break;
    const line = state.src.slice(pos, max);
    if (line.trim().endsWith('$$')) {
      const last = state.src.slice(0, max).lastIndexOf('$$');
      lastLine = state.src.slice(pos, last);
      found = true;
    }
  }
  const contentEnd = Math.min(next, endLine);
  state.line = found ? next + 1 : contentEnd;
  const token = state.push('math_block', 'math', 0);
  token.block = true;
  token.content =
    (firstLine.trim() ? `${firstLine}\n` : '') +
    state.getLines(startLine + 1, contentEnd, state.tShift[startLine] ?? 0, true) +
    (lastLine.trim() ? lastLine : '');
  token.map = [startLine, state.line];
  token.markup = '$$';
  return true;
}

export function mathPlugin(md: MarkdownIt, render: MathRenderer): void {
  md.inline.ruler.after('escape', 'math_inline', mathInline);
  md.block.ruler.after('blockquote', 'math_block', mathBlock, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.renderer.rules.math_inline = (tokens, idx) => render(tokens[idx]?.content ?? '', false);
  md.renderer.rules.math_block = (tokens, idx) =>
    `<p class="katex-block">${render(tokens[idx]?.content ?? '', true)}</p>\n`;
}
