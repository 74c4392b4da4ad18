import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AskResponse } from '@cc/contracts';
import { joinSettings } from '../presenters/user.presenter';
import { updateUserSettings } from '../services/user.service';
import { rawText } from './raw-text';
import { apiAsk, frameOf, replay } from '../test/chat-client';
import { createTestApp } from '../test/harness';
import type { TestApp } from '../test/harness';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await createTestApp();
  url = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => t.close());

describe('chat frames on the wire', () => {
  it('permessage-deflate is negotiated, and a delta-mode answer costs less on the wire than its own text', async () => {
    const u = await t.createUser();
    const s = joinSettings(u.setting, u.counters);
    s.openai_api.rate_limits = [];
    await updateUserSettings(t.ctx, u.row.id, s);
    const cookie = await t.login(u.row.username, u.password);
    // ~330 chunks of 8 characters at 1,000 a second: the answer spans several of the channel's 50 ms frame gaps
    // (unpaced, it could end within the first one, its text then going with the end's changes in one delta).
    t.ctx.demo!.emulator.setKnobs({ chunkSize: 8, tokensPerSecond: 2000 });
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/api/chat`, {
      headers: { cookie },
      perMessageDeflate: true,
    });
    const frames: AskResponse[] = [];
    let wireAtOpen = 0;
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    socket.on('open', () => {
      wireAtOpen = (socket as unknown as { _socket: { bytesRead: number } })._socket.bytesRead;
      socket.send(JSON.stringify(apiAsk('#long 400', { stream_mode: 'delta' })));
    });
    socket.on('message', (data, isBinary) => frames.push(frameOf(rawText(data), isBinary)));
    expect(await closed).toBe(1000);
    expect(socket.extensions).toContain('permessage-deflate');
    const wire = (socket as unknown as { _socket: { bytesRead: number } })._socket.bytesRead - wireAtOpen;
    const answer = [...replay(frames).values()].reduce(
      (longest, text) => (text.length > longest.length ? text : longest),
      '',
    );
    expect(answer.length).toBeGreaterThan(2000);
    // The answer went whole once, at its first chunk; the rest of its text as compressed appends.
    const wholeAnswers = frames.filter((f) => f.type === 'message' && f.message?.role === 'assistant');
    expect(wholeAnswers).toHaveLength(1);
    expect(frames.some((f) => f.type === 'append')).toBe(true);
    expect(wire).toBeLessThan(Buffer.byteLength(answer) * 1.5);
  });
});
