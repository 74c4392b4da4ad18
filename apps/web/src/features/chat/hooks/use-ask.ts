import { useCallback, useEffect, useRef, useState } from 'react';
import type { AskRequestInput, ChatMessage } from '@cc/contracts';
import { openAsk } from '../../../lib/chat-socket';
import type { AskConnection } from '../../../lib/chat-socket';
import { useLatest } from '../../../lib/use-latest';
import { applyClose, applyFrame, startAsk } from '../lib/ask-session';
import type { AskState } from '../lib/ask-session';

export interface UseAskOptions {
  /** Called once when the socket closed, with the final state and the request. */
  onSettled: (state: AskState, request: AskRequestInput) => void;
}

/**
 * One question at a time over the chat websocket. Frames are folded into a ref and committed at most once per
 * animation frame, so a fast stream costs one render per frame, not per chunk.
 */
export function useAsk({ onSettled }: UseAskOptions) {
  const [state, setState] = useState<AskState | null>(null);
  const stateRef = useRef<AskState | null>(null);
  const connection = useRef<AskConnection | null>(null);
  const scheduled = useRef<number | null>(null);
  const settledRef = useLatest(onSettled);

  const commit = useCallback(() => {
    scheduled.current = null;
    setState(stateRef.current);
  }, []);

  const ask = useCallback(
    (request: AskRequestInput, tempUser: ChatMessage | null) => {
      connection.current?.close();
      stateRef.current = startAsk(tempUser, request.conversation_id ?? null);
      setState(stateRef.current);
      connection.current = openAsk(request, {
        onFrame: (frame) => {
          if (!stateRef.current) return;
          stateRef.current = applyFrame(stateRef.current, frame);
          scheduled.current ??= requestAnimationFrame(commit);
        },
        onClose: (code, reason, byClient) => {
          if (!stateRef.current) return;
          if (scheduled.current !== null) cancelAnimationFrame(scheduled.current);
          scheduled.current = null;
          const final = applyClose(stateRef.current, code, reason, byClient);
          stateRef.current = final;
          connection.current = null;
          setState(final);
          settledRef.current(final, request);
        },
      });
    },
    [commit, settledRef],
  );

  const stop = useCallback(() => connection.current?.close(), []);

  const reset = useCallback(() => {
    stateRef.current = null;
    setState(null);
  }, []);

  useEffect(
    () => () => {
      connection.current?.close();
      if (scheduled.current !== null) cancelAnimationFrame(scheduled.current);
    },
    [],
  );

  return { state, ask, stop, reset };
}
