/** The upstream answered with a non-2xx status (or an error event inside the stream: status null). */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    readonly status: number | null,
    readonly body: string,
  ) {
    super(`upstream ${status ?? 'stream'} error: ${body.slice(0, 500)}`);
  }
}

/** No byte from the upstream within the connect or read timeout. */
export class UpstreamTimeout extends Error {
  override name = 'UpstreamTimeout';
}

/** The connection failed (refused, reset, DNS, TLS) or the stream was cut off. */
export class UpstreamNetworkError extends Error {
  override name = 'UpstreamNetworkError';
  constructor(
    message: string,
    /** The internal code (`UND_ERR_SOCKET`, `ECONNREFUSED`, `STREAM_CUT`, …): for the log and for grouping. */
    readonly code: string | null = null,
  ) {
    super(message);
  }
}

/** The stream closed cleanly without its `data: [DONE]` line. Sources decide whether the answer was complete. */
export class UpstreamEndedWithoutDone extends UpstreamNetworkError {
  override name = 'UpstreamNetworkError';
}

/** The stream ended without any answer content (e.g. only a content filter verdict): nothing to show or charge. */
export class UpstreamEmptyAnswer extends UpstreamError {
  constructor() {
    super(null, '');
    this.message = 'the upstream answer had no content';
  }
}
