import { AskResponse } from '@cc/contracts';
import type { AskRequest, ChatMessage } from '@cc/contracts';
import type { AnswerLog } from '../coordination/answer-log';
import type { AnswerSink } from './frames';
import { FrameEncoder } from './frames';

/** Frames of a streaming answer go out at most this often (chunks in between are gathered into one). */
export const FRAME_GAP_MS = 50;

/** The socket that asked, as the channel sees it: serialized frames out, one close. */
export interface FrameOutput {
  send(data: string): void;
  /**
   * Text appended to the message the last message frame named (delta mode): the same as an `append` frame, sent as a
   * binary message of the text itself (UTF-8) — no envelope around each chunk (see AskResponse in the contracts).
   */
  append(text: string): void;
  close(code: number, reason: string): void;
}

const APPEND_PREFIX = '{"type":"append","text":';

/** The text of a logged `append` frame (as `serialize` writes it), or null for any other frame. */
export function appendedText(frame: string): string | null {
  return frame.startsWith(APPEND_PREFIX) ? (JSON.parse(frame) as { text: string }).text : null;
}

const CHECK_FRAMES = process.env.NODE_ENV === 'test';

/**
 * One answer's frames. They go to the answer log, delta-encoded (what a client that reconnects replays), and to
 * the socket that asked while it is attached: in delta mode the very same frames, so that the socket's frame count
 * is its position in the log; in full mode whole messages. The answer goes on when the socket detaches.
 *
 * Text appended to the message the last frame named goes out as a short `append` frame (no ids; to the socket, the
 * text alone as a binary message: see `FrameOutput.append`). Chunks that arrive close together go out as one frame:
 * a chunk is sent when the current turn of the event loop ends, unless a frame went out less than FRAME_GAP_MS ago —
 * then it waits for the rest of that gap, gathering what else arrives. So no chunk waits longer than the gap, and a
 * fast upstream costs a frame per gap, not a frame per chunk. Other fields of that message that change (an answer's
 * end sets its finish reason, then its token counts) wait with the text: the gap's changes go out as one delta.
 */
export class AnswerChannel implements AnswerSink {
  private readonly logEncoder = new FrameEncoder('delta');
  private readonly socketEncoder: FrameEncoder | null;
  private ended = false;
  /** The message the last message frame named: `append` frames add to it. */
  private named: string | null = null;
  /** Text for `named` not sent yet. */
  private pendingText = '';
  /** Other fields of `named` changed and not sent yet (with the conversation its frames name), or null. */
  private pendingSet: { conversationId: string; set: Record<string, unknown> } | null = null;
  /** Full mode: the newest snapshot of a message not sent to the socket yet. */
  private pendingSnapshot: { conversationId: string; message: ChatMessage } | null = null;
  private scheduled:
    { kind: 'turn'; handle: NodeJS.Immediate } | { kind: 'gap'; handle: NodeJS.Timeout } | null = null;
  /** When the last frame went out (ms since the epoch). */
  private lastSentAt = 0;

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
    this.flush();
    this.socket = null;
  }

  send(frame: AskResponse): void {
    this.flush();
    this.emit(serialize(frame), true);
  }

  message(conversationId: string, message: ChatMessage, appended?: string): void {
    const frame = this.logEncoder.encode(conversationId, message, appended);
    if (frame.type === 'message' && frame.delta && frame.delta.message_id === this.named) {
      this.pendingText += frame.delta.append;
      // Changed fields wait with the text: one frame carries the changes of the gap (an answer's end changes its
      // finish reason, then its token counts).
      if (frame.delta.set) {
        const set = { ...this.pendingSet?.set, ...frame.delta.set };
        this.pendingSet = { conversationId: frame.conversation_id, set };
      }
    } else {
      this.flushText();
      this.emit(serialize(frame), false);
      if (frame.type === 'message') this.named = frame.delta?.message_id ?? frame.message?.id ?? this.named;
    }
    if (this.socketEncoder) {
      if (this.pendingSnapshot && this.pendingSnapshot.message.id !== message.id) this.flushSnapshot();
      this.pendingSnapshot = { conversationId, message };
    }
    this.schedule();
  }

  /** The scheduled send (one function for the channel's life, not one a chunk). */
  private readonly scheduledFlush = () => {
    this.scheduled = null;
    this.flush();
  };

  /** Sends the pending text at the end of this turn, or when the gap since the last frame has passed. */
  private schedule(): void {
    if (this.scheduled) return;
    const wait = this.lastSentAt + FRAME_GAP_MS - Date.now();
    this.scheduled =
      wait > 0
        ? { kind: 'gap', handle: setTimeout(this.scheduledFlush, wait) }
        : { kind: 'turn', handle: setImmediate(this.scheduledFlush) };
  }

  endMessages(): void {
    this.flush();
  }

  close(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.flush();
    this.log.end(this.userId, this.askId, { code, reason }).catch(() => undefined);
    this.socket?.close(code, reason);
    this.socket = null;
  }

  /** Sends what is pending now. */
  private flush(): void {
    if (this.scheduled?.kind === 'turn') clearImmediate(this.scheduled.handle);
    else if (this.scheduled) clearTimeout(this.scheduled.handle);
    this.scheduled = null;
    this.flushText();
    this.flushSnapshot();
  }

  private flushText(): void {
    const pendingSet = this.pendingSet;
    if (pendingSet && this.named !== null) {
      const delta = { message_id: this.named, append: this.pendingText, set: pendingSet.set };
      this.pendingText = '';
      this.pendingSet = null;
      this.emit(serialize({ type: 'message', conversation_id: pendingSet.conversationId, delta }), false);
      return;
    }
    if (!this.pendingText) return;
    const text = this.pendingText;
    this.pendingText = '';
    this.log.append(this.userId, this.askId, serialize({ type: 'append', text }));
    if (!this.socketEncoder) {
      this.socket?.append(text);
      this.lastSentAt = Date.now();
    }
  }

  private flushSnapshot(): void {
    const pending = this.pendingSnapshot;
    this.pendingSnapshot = null;
    if (pending && this.socketEncoder) {
      this.socket?.send(serialize(this.socketEncoder.encode(pending.conversationId, pending.message)));
      this.lastSentAt = Date.now();
    }
  }

  /** A frame to the log, and to the socket in delta mode (or always, for frames other than message content). */
  private emit(data: string, always: boolean): void {
    this.log.append(this.userId, this.askId, data);
    if (always || !this.socketEncoder) {
      this.socket?.send(data);
      this.lastSentAt = Date.now();
    }
  }
}

function serialize(frame: AskResponse): string {
  // The server never sends a frame the contract does not name: tests check every frame against it.
  return JSON.stringify(CHECK_FRAMES ? AskResponse.parse(frame) : frame);
}
