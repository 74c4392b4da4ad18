import { describe, expect, it, vi } from 'vitest';
import type { AskResponse } from '@cc/contracts';
import { openAsk, resumeCurrentAsk } from './chat-socket';

class FakeSocket {
  readyState: number = WebSocket.CONNECTING;
  sent: unknown[] = [];
  closedWith: number | null = null;
  onopen: (() => void) | null = null;
  binaryType = 'blob';
  onmessage: ((e: { data: string | ArrayBuffer }) => void) | null = null;
  onclose: ((e: { code: number; reason: string }) => void) | null = null;
  open() {
    this.readyState = WebSocket.OPEN;
    this.onopen?.();
  }
  frame(f: AskResponse) {
    this.onmessage?.({ data: JSON.stringify(f) });
  }
  /** A binary message (appended text, as the server sends it in delta mode), read as the socket is set to. */
  binary(text: string) {
    if (this.binaryType !== 'arraybuffer') throw new Error('binary messages would arrive as Blobs');
    this.onmessage?.({ data: new TextEncoder().encode(text).buffer });
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close(code: number) {
    this.closedWith = code;
    this.readyState = WebSocket.CLOSED;
  }
  end(code: number, reason = '') {
    this.readyState = WebSocket.CLOSED;
    this.onclose?.({ code, reason });
  }
}

function harness() {
  const sockets: FakeSocket[] = [];
  const timers: (() => void)[] = [];
  const onFrame = vi.fn();
  const onClose = vi.fn();
  const options = {
    createSocket: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s as unknown as WebSocket;
    },
    schedule: (fn: () => void) => void timers.push(fn),
  };
  return { sockets, timers, onFrame, onClose, options };
}

const delta = (append: string): AskResponse => ({
  type: 'message',
  conversation_id: 'c1',
  delta: { message_id: 'a1', append },
});

describe('chat socket', () => {
  it('append frames are passed on and counted for the resume position', () => {
    const h = harness();
    openAsk(
      { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: 'hi' },
      h,
      h.options,
    );
    const first = h.sockets[0]!;
    first.open();
    const askId = (first.sent[0] as { ask_id: string }).ask_id;
    first.frame(delta('a'));
    first.frame({ type: 'append', text: 'b' });
    first.frame({ type: 'append', text: 'c' });
    expect(h.onFrame).toHaveBeenLastCalledWith({ type: 'append', text: 'c' });
    // The server sends appended text alone, as a binary message: the same frame.
    first.binary('d é 😀');
    expect(h.onFrame).toHaveBeenLastCalledWith({ type: 'append', text: 'd é 😀' });
    first.end(1006);
    h.timers.shift()!();
    h.sockets[1]!.open();
    expect(h.sockets[1]!.sent[0]).toEqual({ type: 'resume', ask_id: askId, after: 4 });
  });

  it('a dropped connection resumes after the frames already received, once, and ends once', () => {
    const h = harness();
    openAsk(
      { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: 'hi' },
      h,
      h.options,
    );
    const first = h.sockets[0]!;
    first.open();
    const askId = (first.sent[0] as { ask_id: string }).ask_id;
    expect(askId).toMatch(/^[0-9a-f-]{36}$/);
    first.frame({ type: 'waiting', tip: 'tips.waiting' });
    first.frame(delta('a'));
    first.end(1006);
    expect(h.onClose).not.toHaveBeenCalled();
    h.timers.shift()!();
    const second = h.sockets[1]!;
    second.open();
    expect(second.sent[0]).toEqual({ type: 'resume', ask_id: askId, after: 2 });
    second.frame(delta('b'));
    second.end(1000, 'tips.finished');
    expect(h.onFrame).toHaveBeenCalledTimes(3);
    expect(h.onClose).toHaveBeenCalledExactlyOnceWith(1000, 'tips.finished', false);
  });

  it('an instance that shuts down (1012) sends the same question elsewhere, or resumes what it had', () => {
    const h = harness();
    const request = {
      source: 'openai_api' as const,
      model: 'gpt_3_5',
      new_conversation: true,
      text_content: 'hi',
    };
    openAsk(request, h, h.options);
    const first = h.sockets[0]!;
    first.open();
    first.end(1012, 'errors.serverRestarting');
    h.timers.shift()!();
    const second = h.sockets[1]!;
    second.open();
    expect(second.sent[0]).toEqual(first.sent[0]);
    const askId = (first.sent[0] as { ask_id: string }).ask_id;
    second.frame({ type: 'waiting', tip: 'tips.waiting' });
    second.end(1012, 'errors.serverRestarting');
    h.timers.shift()!();
    const third = h.sockets[2]!;
    third.open();
    expect(third.sent[0]).toEqual({ type: 'resume', ask_id: askId, after: 1 });
    third.end(1001, 'tips.interrupted');
    expect(h.onClose).toHaveBeenCalledExactlyOnceWith(1001, 'tips.interrupted', false);
  });

  it('a question still queued when its instance shuts down (1012 after queue frames) is asked again elsewhere', () => {
    const h = harness();
    openAsk(
      { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: 'hi' },
      h,
      h.options,
    );
    const first = h.sockets[0]!;
    first.open();
    first.frame({ type: 'queueing', tip: 'tips.queueing', position: 2 });
    first.frame({ type: 'queueing', tip: 'tips.queueing', position: 1 });
    first.end(1012, 'errors.serverRestarting');
    h.timers.shift()!();
    const second = h.sockets[1]!;
    second.open();
    expect(second.sent[0]).toEqual(first.sent[0]);
    // The new answer's frames count from its start.
    second.frame({ type: 'waiting', tip: 'tips.waiting' });
    second.end(1006);
    h.timers.shift()!();
    const third = h.sockets[2]!;
    third.open();
    const askId = (first.sent[0] as { ask_id: string }).ask_id;
    expect(third.sent[0]).toEqual({ type: 'resume', ask_id: askId, after: 1 });
  });

  it('stop between two sockets asks the server to stop on a socket of its own', () => {
    const h = harness();
    const c = openAsk(
      { source: 'openai_api', model: 'gpt_3_5', new_conversation: true, text_content: 'hi' },
      h,
      h.options,
    );
    h.sockets[0]!.open();
    const askId = (h.sockets[0]!.sent[0] as { ask_id: string }).ask_id;
    h.sockets[0]!.end(1006);
    c.close();
    const stopper = h.sockets[1]!;
    stopper.open();
    expect(stopper.sent[0]).toEqual({ type: 'stop', ask_id: askId });
    expect(h.onClose).toHaveBeenCalledExactlyOnceWith(1000, '', true);
    h.timers.forEach((fn) => fn());
    expect(h.sockets).toHaveLength(2);
  });

  it('stop on an open socket closes it with 1000; leaving the page detaches with 4000', () => {
    const h = harness();
    const request = {
      source: 'openai_api',
      model: 'gpt_3_5',
      new_conversation: true,
      text_content: 'hi',
    } as const;
    openAsk(request, h, h.options).close();
    // Still connecting: that socket is left and a socket of its own asks for the stop.
    expect(h.sockets[0]!.closedWith).toBe(4000);
    expect(h.sockets).toHaveLength(2);
    const other = harness();
    const c = openAsk(request, other, other.options);
    other.sockets[0]!.open();
    c.detach();
    expect(other.sockets[0]!.closedWith).toBe(4000);
    expect(other.onClose).not.toHaveBeenCalled();
    const third = harness();
    const d = openAsk(request, third, third.options);
    third.sockets[0]!.open();
    d.close();
    expect(third.sockets[0]!.closedWith).toBe(1000);
  });

  it('resuming the current answer starts from its first frame; a drop then is final', () => {
    const h = harness();
    resumeCurrentAsk(h, h.options);
    h.sockets[0]!.open();
    expect(h.sockets[0]!.sent[0]).toEqual({ type: 'resume', ask_id: null, after: 0 });
    h.sockets[0]!.end(1006);
    expect(h.timers).toEqual([]);
    expect(h.onClose).toHaveBeenCalledExactlyOnceWith(1006, '', false);
  });
});
