/**
 * SPEC §9 / reference §2.7: outside code, `\( … \)` becomes `$…$` and `\[ … \]` a `$$` block; a marker without
 * its closing one is left as is; runs of 3+ newlines collapse to 2. One left-to-right scan tracks fenced and
 * inline code.
 */
export function replaceMathDelimiters(text: string): string {
  let out = '';
  let i = 0;
  let inFence = false;
  let inInline = false;
  const n = text.length;
  while (i < n) {
    if (text.startsWith('```', i)) {
      // A fence closes inline code that was open and toggles the fenced state.
      inInline = false;
      inFence = !inFence;
      out += '```';
      i += 3;
      continue;
    }
    const ch = text[i];
    if (ch === '`' && !inFence) {
      inInline = !inInline;
      out += ch;
      i += 1;
      continue;
    }
    if (!inFence && !inInline && ch === '\\' && (text[i + 1] === '(' || text[i + 1] === '[')) {
      const display = text[i + 1] === '[';
      const close = display ? '\\]' : '\\)';
      const end = text.indexOf(close, i + 2);
      if (end !== -1) {
        const inner = text.slice(i + 2, end).trim();
        out += display ? `\n$$\n${inner}\n$$\n` : `$${inner}$`;
        i = end + 2;
        continue;
      }
    }
    out += ch;
    i += 1;
  }
  return out.replace(/\n{3,}/g, '\n\n');
}
