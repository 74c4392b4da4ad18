import { AskResponse } from '@cc/contracts';
import type { AskRequest, ChatMessage } from '@cc/contracts';
import type { AnswerLog } from '../coordination/answer-log';
import type { AnswerSink } from './frames';
import { FrameEncoder } from './frames';

/** The socket that asked, as the channel sees it: serialized frames out, one close. */
export interface FrameOutput {
  send(data: string): void;
  close(code: number, reason: string): void;
}

const CHECK_FRAMES = process.env.NODE_ENV === 'test';

/**
 * One answer's frames. They go to the answer log, delta-encoded (what a client that reconnects replays), and to
 * the socket that asked while it is attached: in delta mode the very same frames, so that the socket's frame count
 * is its position in the log; in full mode whole messages. The answer goes on when the socket detaches.
 */
export class AnswerChannel implements AnswerSink {
  private readonly logEncoder = new FrameEncoder('delta');
  private readonly socketEncoder: FrameEncoder | null;
  private ended = false;

  constructor(
    private readonly log: AnswerLog,
    private readonly userId: number,
    readonly askId: string,
    private socket: FrameOutput | null,
    mode: AskRequest['stream_mode'],
  ) {
    this.socketEncoder = mode === 'delta' ? null : new FrameEncoder(mode);
  }

  async open(): Promise<void> {
    await this.log.begin(this.userId, this.askId);
  }

  /** The socket went away (network, reload): the answer goes on, the log keeps its frames. */
  detach(): void {
    this.socket = null;
  }

  send(frame: AskResponse): void {
    const data = serialize(frame);
    this.log.append(this.userId, this.askId, data);
    this.socket?.send(data);
  }

  message(conversationId: string, message: ChatMessage): void {
    const data = serialize(this.logEncoder.encode(conversationId, message));
    this.log.append(this.userId, this.askId, data);
    if (!this.socket) return;
    this.socket.send(
      this.socketEncoder ? serialize(this.socketEncoder.encode(conversationId, message)) : data,
    );
  }

  endMessages(conversationId: string, messageOf: (id: string) => ChatMessage | undefined): void {
    for (const id of this.logEncoder.pendingFull()) {
      const message = messageOf(id);
      if (!message) continue;
      const data = serialize({ type: 'message', conversation_id: conversationId, message });
      this.log.append(this.userId, this.askId, data);
      if (!this.socketEncoder) this.socket?.send(data);
    }
  }

  close(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.log.end(this.userId, this.askId, { code, reason }).catch(() => undefined);
    this.socket?.close(code, reason);
    this.socket = null;
  }
}

function serialize(frame: AskResponse): string {
  // The server never sends a frame the contract does not name: tests check every frame against it.
  return JSON.stringify(CHECK_FRAMES ? AskResponse.parse(frame) : frame);
}
