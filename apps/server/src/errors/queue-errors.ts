/** The ask waited longer than the queue timeout for a free upstream slot. */
export class QueueTimeoutError extends Error {
  override name = 'QueueTimeoutError';
}

/**
 * The shared coordination store (Redis) failed or did not answer in time while an ask needed it (its lock, the
 * queue): the ask is refused as temporarily unavailable, nothing charged. `cause` is Redis's error.
 */
export class CoordinationUnavailableError extends Error {
  override name = 'CoordinationUnavailableError';
}

/** Runs one call to the coordination store; any failure becomes a CoordinationUnavailableError. */
export async function coordinationCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if ((e as { name?: string } | null)?.name === 'AbortError') throw e;
    if (e instanceof QueueTimeoutError || e instanceof NoServerError) throw e;
    throw new CoordinationUnavailableError('coordination store unavailable', { cause: e });
  }
}

/**
 * The instance began to drain (SIGTERM) while the ask still waited for a slot: it is handed back to its client, to
 * be asked again on another instance, as if never started (nothing charged, nothing recorded).
 */
export class ServerDrainingError extends Error {
  override name = 'ServerDrainingError';
}

/** No upstream server of the source is online (the message names the source). */
export class NoServerError extends Error {
  override name = 'NoServerError';
}
