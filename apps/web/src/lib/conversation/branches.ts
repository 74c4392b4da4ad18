import type { ChatMessage } from '@cc/contracts';

type Mapping = Readonly<Record<string, ChatMessage>>;

/**
 * The versions of a message: its parent's children (a regenerated answer, an edited question), in the order they
 * were made. A message without a parent in the mapping is one of the conversation's first questions.
 */
export function siblingsOf(mapping: Mapping, id: string): string[] {
  const message = mapping[id];
  if (!message) return [id];
  const parent = message.parent ? mapping[message.parent] : undefined;
  const ids = parent
    ? parent.children
    : Object.values(mapping)
        .filter((m) => !m.parent || !mapping[m.parent])
        .map((m) => m.id);
  const shown = ids.filter((x) => mapping[x]?.content);
  return shown.length > 0 ? shown : [id];
}

/** The end of the branch that starts at `id`: the latest version at every step down. */
export function leafOf(mapping: Mapping, id: string): string {
  const seen = new Set<string>();
  let current = id;
  for (;;) {
    seen.add(current);
    const children = (mapping[current]?.children ?? []).filter((c) => mapping[c] && !seen.has(c));
    const next = children[children.length - 1];
    if (!next) return current;
    current = next;
  }
}
