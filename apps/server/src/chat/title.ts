import { clip } from '@cc/contracts';
import type { AskRequest } from '@cc/contracts';
import type { AppContext } from '../app-context';
import type { AskInput, SourceAdapter } from '../sources/types';
import type { StreamSession } from './stream-session';

const TITLE_TIMEOUT_MS = 10_000;
/** Without a generated title, a new conversation is named after the start of its question. */
const FALLBACK_TITLE_LENGTH = 40;

/**
 * A new conversation gets its title: the one the user gave (told to the upstream where titles live there), the
 * upstream's from the stream, or one the source generates, else the start of the question.
 */
export async function finishTitle(
  ctx: AppContext,
  adapter: SourceAdapter,
  request: AskRequest,
  session: StreamSession,
  input: AskInput,
): Promise<void> {
  const conversationId = session.conversationId;
  if (!request.new_conversation || !conversationId) return;
  const given = request.new_title?.trim();
  if (given) {
    await adapter
      .setTitle(input.target, conversationId, given)
      .catch((err: unknown) => ctx.log.warn({ err }, 'setting the upstream title failed'));
    return;
  }
  if (session.title) return;
  const title = await adapter
    .generateTitle({
      target: { ...input.target, readTimeoutMs: TITLE_TIMEOUT_MS },
      modelCode: input.modelCode,
      conversationId,
      question: input.text,
      answer: session.lastAnswer(),
      signal: AbortSignal.any([input.signal, AbortSignal.timeout(TITLE_TIMEOUT_MS)]),
    })
    .catch((err: unknown) => {
      ctx.log.warn({ err }, 'title generation failed');
      return null;
    });
  const chosen = title ?? (clip(input.text.trim(), FALLBACK_TITLE_LENGTH) || null);
  if (chosen) session.setTitle(chosen);
}
