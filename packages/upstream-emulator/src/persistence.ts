/**
 * Optional persistence of the web conversations in one JSON file, so an emulator restarted on the same file (the
 * demo upstream of a restarted server) still knows them. Files, plugin installs, knobs and faults stay in memory.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Conversation } from './state';
import { isRecord } from './util';

const FORMAT_VERSION = 1;
/** Changes within this window are written together (one answer touches its conversation many times). */
const SAVE_DELAY_MS = 100;

interface StateFileContent {
  version: typeof FORMAT_VERSION;
  conversations: Conversation[];
}

function isConversation(value: unknown): value is Conversation {
  return (
    isRecord(value) &&
    typeof value['id'] === 'string' &&
    typeof value['title'] === 'string' &&
    typeof value['createTime'] === 'number' &&
    typeof value['updateTime'] === 'number' &&
    isRecord(value['mapping']) &&
    typeof value['currentNode'] === 'string' &&
    (value['pluginIds'] === null || Array.isArray(value['pluginIds'])) &&
    typeof value['model'] === 'string' &&
    typeof value['isVisible'] === 'boolean' &&
    (value['kernelStartedAt'] === null || typeof value['kernelStartedAt'] === 'number') &&
    typeof value['seq'] === 'number'
  );
}

function parse(text: string): Conversation[] {
  const content: unknown = JSON.parse(text);
  if (
    !isRecord(content) ||
    content['version'] !== FORMAT_VERSION ||
    !Array.isArray(content['conversations'])
  ) {
    throw new Error(`not a version ${FORMAT_VERSION} state file`);
  }
  const conversations: unknown[] = content['conversations'];
  const bad = conversations.findIndex((c) => !isConversation(c));
  if (bad >= 0) throw new Error(`conversation #${bad} is malformed`);
  return conversations as Conversation[];
}

/**
 * Reads the conversations kept in `file`: none when it does not exist yet. A file that cannot be read as a state
 * file is moved aside to `<file>.corrupt` (kept for inspection, not overwritten by the next save) and reported;
 * the emulator then starts empty rather than not at all.
 */
export function loadConversations(file: string, warn: (message: string) => void): Conversation[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    warn(`[upstream-emulator] state file ${file} not readable, starting empty: ${String(err)}`);
    return [];
  }
  try {
    return parse(text);
  } catch (err) {
    let aside = '';
    try {
      renameSync(file, `${file}.corrupt`);
      aside = `; moved to ${file}.corrupt`;
    } catch {
      // Left in place: the next save replaces it.
    }
    warn(`[upstream-emulator] state file ${file} is not valid (${String(err)}), starting empty${aside}`);
    return [];
  }
}

/**
 * Writes the conversations to `file` a moment after a change: the whole state to a temporary file in the same
 * directory, then renamed over `file`, so a crash mid-write never leaves a half-written state file.
 */
export class StateFileWriter {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly file: string,
    private readonly conversations: () => Iterable<Conversation>,
    private readonly warn: (message: string) => void,
  ) {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
    } catch (err) {
      // Not fatal: the emulator still answers, each failed save is reported.
      warn(`[upstream-emulator] state file directory for ${file} not created: ${String(err)}`);
    }
  }

  /** Something changed: save soon (several changes in a row are saved once). */
  changed(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.save();
    }, SAVE_DELAY_MS);
    this.timer.unref();
  }

  /**
   * Writes the state now, whether or not a change is pending (a request cut by the close may not have reported
   * its change yet); later changes are no longer saved (the emulator is closing).
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.save();
  }

  private save(): void {
    const content: StateFileContent = { version: FORMAT_VERSION, conversations: [...this.conversations()] };
    const temporary = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify(content), { mode: 0o600 });
      renameSync(temporary, this.file);
    } catch (err) {
      this.warn(`[upstream-emulator] state file ${this.file} not written: ${String(err)}`);
    }
  }
}
