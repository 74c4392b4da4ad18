import { useCallback, useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { CHAT_CLOSE } from '@cc/contracts';
import type { AskRequestInput, ChatMessage } from '@cc/contracts';
import { openAsk, resumeCurrentAsk } from '../../../lib/chat-socket';
import type { AskConnection, AskHandlers } from '../../../lib/chat-socket';
import { useLatest } from '../../../lib/use-latest';
import { applyClose, applyFrame, startAsk } from '../lib/ask-session';
import type { AskState } from '../lib/ask-session';
import { STREAM_RENDER_INTERVAL_MS, createFrameThrottle } from '../lib/frame-throttle';
import type { FrameThrottle } from '../lib/frame-throttle';

export interface UseAskOptions {
  /**
   * Called once when the answer ended, with the final state and the request (null for an answer resumed after a
   * reload, whose request this page never saw).
   */
  onSettled: (state: AskState, request: AskRequestInput | null) => void;
}

/**
 * One question at a time over the chat websocket. Frames are folded into a ref and committed at most once per
 * animation frame and STREAM_RENDER_INTERVAL_MS apart (about 20 renders a second, as chat clients commonly
 * throttle), so a fast stream costs a few renders a second, not one per chunk. The answer belongs to the server:
 * leaving the page detaches from it, and `resume` picks up the user's answer in flight (after a reload).
 */
export function useAsk({ onSettled }: UseAskOptions) {
  const [state, setState] = useState<AskState | null>(null);
  /**
   * The resume's connection closed: no answer was in flight, or the one resumed ended (one found is `state` from its
   * first frame). Until either, a stored copy of a running answer may look unfinished.
   */
  const [resumeSettled, setResumeSettled] = useState(false);
  const stateRef = useRef<AskState | null>(null);
  const connection = useRef<AskConnection | null>(null);
  const throttle = useRef<FrameThrottle | null>(null);
  const settledRef = useLatest(onSettled);

  const scheduleCommit = useCallback(() => {
    // Rendered inside the animation frame (flushSync): a plain setState there renders in a task after the frame,
    // and the new text waits for the next one (one more frame laid out and painted per update).
    throttle.current ??= createFrameThrottle(
      () => flushSync(() => setState(stateRef.current)),
      STREAM_RENDER_INTERVAL_MS,
    );
    throttle.current.schedule();
  }, []);

  const handlers = useCallback(
    (request: AskRequestInput | null): AskHandlers => ({
      onFrame: (frame) => {
        // A resumed answer shows up with its first frame.
        stateRef.current ??= startAsk(null, frame.type === 'append' ? null : (frame.conversation_id ?? null));
        stateRef.current = applyFrame(stateRef.current, frame);
        scheduleCommit();
      },
      onClose: (code, reason, byClient) => {
        throttle.current?.cancel();
        connection.current = null;
        if (!request) setResumeSettled(true);
        if (!stateRef.current) return; // nothing to resume
        const final = applyClose(stateRef.current, code, reason, byClient);
        stateRef.current = final;
        setState(final);
        if (code !== CHAT_CLOSE.answerNotFound.code) settledRef.current(final, request);
      },
    }),
    [scheduleCommit, settledRef],
  );

  const ask = useCallback(
    (request: AskRequestInput, tempUser: ChatMessage | null) => {
      connection.current?.close();
      stateRef.current = startAsk(tempUser, request.conversation_id ?? null);
      setState(stateRef.current);
      connection.current = openAsk(request, handlers(request));
    },
    [handlers],
  );

  /** Follows the user's answer in flight, if any; the state appears with its first frame. */
  const resume = useCallback(() => {
    if (connection.current) return;
    stateRef.current = null;
    connection.current = resumeCurrentAsk(handlers(null));
  }, [handlers]);

  const stop = useCallback(() => connection.current?.close(), []);

  const reset = useCallback(() => {
    stateRef.current = null;
    setState(null);
  }, []);

  useEffect(
    () => () => {
      connection.current?.detach();
      connection.current = null;
      throttle.current?.cancel();
    },
    [],
  );

  return { state, ask, stop, reset, resume, resumeSettled };
}
