/** The ask waited longer than the queue timeout for a free upstream slot. */
export class QueueTimeoutError extends Error {
  override name = 'QueueTimeoutError';
}

/** No upstream server of the source is online (the message names the source). */
export class NoServerError extends Error {
  override name = 'NoServerError';
}
