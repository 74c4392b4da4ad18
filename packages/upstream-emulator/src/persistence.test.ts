/* eslint-disable @typescript-eslint/no-explicit-any -- tests read untyped JSON bodies */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startEmulator } from './index';
import type { Emulator } from './index';
import { postWebAsk, readSomeEvents, textOf, webAsk } from './test-helpers';

let dir: string;
let file: string;
const open: Emulator[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'emu-state-'));
  file = path.join(dir, 'state.json');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(warn?: (message: string) => void): Promise<Emulator> {
  const emu = await startEmulator({ stateFile: file, warn });
  open.push(emu);
  return emu;
}

async function json(emu: Emulator, route: string): Promise<any> {
  const res = await fetch(`${emu.webBaseUrl}${route}`);
  expect(res.status, route).toBe(200);
  return res.json();
}

describe('state file', () => {
  it('keeps the web conversations over a restart', async () => {
    const first = await start();
    const a = await webAsk(first.webBaseUrl, 'first conversation');
    const b = await webAsk(first.webBaseUrl, 'second conversation');
    const rename = await fetch(`${first.webBaseUrl}conversation/${a.conversationId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Renamed' }),
    });
    expect(rename.status).toBe(200);
    // Written shortly after the change, without waiting for the close.
    await vi.waitFor(() => expect(readFileSync(file, 'utf8')).toContain('Renamed'));
    // Owner-only, as the rest of the data directory (it holds the users' demo conversations).
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = await json(first, `conversation/${a.conversationId}`);
    await first.close();

    const second = await start();
    const list = await json(second, 'conversations');
    expect(list.items.map((c: any) => [c.id, c.title])).toEqual([
      [b.conversationId, 'Second Conversation'],
      [a.conversationId, 'Renamed'],
    ]);
    expect(await json(second, `conversation/${a.conversationId}`)).toEqual(before);

    // The restored conversation goes on; a new one still sorts first.
    const more = await webAsk(second.webBaseUrl, 'and more', {
      conversationId: a.conversationId,
      parentId: before.current_node,
    });
    expect(more.status).toBe(200);
    expect(textOf(more.snapshots.at(-1).message)).not.toBe('');
    const c = await webAsk(second.webBaseUrl, 'third conversation');
    await second.close();

    const third = await start();
    expect((await json(third, 'conversations')).items.map((x: any) => x.id)).toEqual([
      c.conversationId,
      a.conversationId,
      b.conversationId,
    ]);
    // reset() forgets them for good.
    third.reset();
    await third.close();
    expect((await json(await start(), 'conversations')).total).toBe(0);
  });

  it('saves an answer cut short by the close as interrupted', async () => {
    const emu = await start();
    const res = await postWebAsk(emu.webBaseUrl, 'cut me short #fault:stall=3');
    const [echo] = await readSomeEvents(res.body!.getReader(), 3);
    const id: string = JSON.parse(echo!).conversation_id;
    await emu.close();

    const conversation = await json(await start(), `conversation/${id}`);
    const answer = conversation.mapping[conversation.current_node].message;
    expect(answer.author.role).toBe('assistant');
    expect(answer.status).toBe('finished_partial_completion');
    expect(answer.metadata.finish_details).toEqual({ type: 'interrupted' });
  });

  it('starts empty on a corrupt state file, keeps the file aside and saves a good one again', async () => {
    writeFileSync(file, '{"version": 1, "conversations": [{"id": 3');
    const warnings: string[] = [];
    const emu = await start((m) => warnings.push(m));
    expect(warnings).toEqual([expect.stringMatching(/state\.json is not valid .*starting empty; moved to/)]);
    expect(readFileSync(`${file}.corrupt`, 'utf8')).toBe('{"version": 1, "conversations": [{"id": 3');
    expect(existsSync(file)).toBe(false);
    expect((await json(emu, 'conversations')).total).toBe(0);

    const a = await webAsk(emu.webBaseUrl, 'after the corrupt file');
    await emu.close();
    const again = await start((m) => warnings.push(m));
    expect((await json(again, 'conversations')).items.map((x: any) => x.id)).toEqual([a.conversationId]);
    expect(warnings).toHaveLength(1);
  });

  it('starts empty on a state file of another shape', async () => {
    writeFileSync(file, JSON.stringify({ version: 1, conversations: [{ id: 'x' }] }));
    const warnings: string[] = [];
    const emu = await start((m) => warnings.push(m));
    expect(warnings).toEqual([expect.stringContaining('conversation #0 is malformed')]);
    expect((await json(emu, 'conversations')).total).toBe(0);
  });
});
