/**
 * Splits markdown into independently renderable blocks at blank lines that sit outside code fences and math
 * blocks, so a streaming answer re-renders only its last block. A blank line is a boundary only when the next
 * line has started and is neither indented (list continuation, indented code) nor a list item (a loose list
 * stays in one block).
 */
export interface BlockSpan {
  start: number;
  end: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^([-*+]|\d{1,9}[.)])(\s|$)/;

export function splitBlockSpans(text: string): BlockSpan[] {
  const spans: BlockSpan[] = [];
  let blockStart = 0;
  let fence: string | null = null;
  let dollarMath = false;
  let bracketMath = false;
  let lineStart = 0;
  let previousBlank = false;
  const n = text.length;
  while (lineStart < n) {
    const newline = text.indexOf('\n', lineStart);
    const complete = newline !== -1;
    const lineEnd = complete ? newline : n;
    const line = text.slice(lineStart, lineEnd);
    const outside = fence === null && !dollarMath && !bracketMath;
    if (
      outside &&
      previousBlank &&
      lineStart > blockStart &&
      line.length > 0 &&
      line[0] !== ' ' &&
      line[0] !== '\t' &&
      !LIST_ITEM.test(line)
    ) {
      spans.push({ start: blockStart, end: lineStart });
      blockStart = lineStart;
    }
    const trimmed = line.trim();
    if (fence !== null) {
      const m = FENCE.exec(line);
      if (m?.[1] && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
    } else if (dollarMath) {
      if (trimmed.endsWith('$$')) dollarMath = false;
    } else if (bracketMath) {
      if (line.includes('\\]')) bracketMath = false;
    } else {
      const m = FENCE.exec(line);
      if (m?.[1]) fence = m[1];
      else if (trimmed.startsWith('$$') && !(trimmed.length > 2 && trimmed.slice(2).includes('$$')))
        dollarMath = true;
      else if (line.includes('\\[') && !line.slice(line.lastIndexOf('\\[')).includes('\\]'))
        bracketMath = true;
    }
    previousBlank = complete && trimmed === '';
    if (!complete) break;
    lineStart = newline + 1;
  }
  spans.push({ start: blockStart, end: n });
  return spans;
}

export function splitBlocks(text: string): string[] {
  return splitBlockSpans(text).map((s) => text.slice(s.start, s.end));
}

/**
 * Keeps the finished blocks of a growing text: each update scans only from the start of the last (unfinished)
 * block, so the work per chunk does not grow with the answer. A text that does not extend the previous one
 * starts over.
 */
export class IncrementalBlockSplitter {
  private text = '';
  private finished: string[] = [];
  private tailStart = 0;

  update(text: string): { finished: readonly string[]; tail: string } {
    if (!text.startsWith(this.text)) {
      this.finished = [];
      this.tailStart = 0;
    }
    this.text = text;
    const tail = text.slice(this.tailStart);
    const spans = splitBlockSpans(tail);
    const last = spans[spans.length - 1] ?? { start: 0, end: tail.length };
    if (spans.length > 1) {
      this.finished = this.finished.concat(spans.slice(0, -1).map((s) => tail.slice(s.start, s.end)));
      this.tailStart += last.start;
    }
    return { finished: this.finished, tail: tail.slice(last.start) };
  }
}
