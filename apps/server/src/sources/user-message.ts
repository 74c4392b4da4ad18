import type { AskInput } from './types';

/** What every source's user message has in common: the id, author and place in the tree. */
export function userMessageBase(input: Pick<AskInput, 'userMessageId' | 'parent'>, createTime: string) {
  return {
    id: input.userMessageId,
    role: 'user' as const,
    author_name: null,
    model: null,
    create_time: createTime,
    parent: input.parent,
    children: [],
  };
}
