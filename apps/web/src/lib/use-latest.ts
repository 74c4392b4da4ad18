import { useLayoutEffect, useRef } from 'react';
import type { RefObject } from 'react';

/**
 * A ref to the latest committed `value`, for callbacks that run outside render (socket events, timers) or effects
 * that must not re-run when the value changes. It is updated after each commit, never during render.
 */
export function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useLayoutEffect(() => {
    ref.current = value;
  });
  return ref;
}
