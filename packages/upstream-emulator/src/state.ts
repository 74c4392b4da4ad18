/** In-memory state of the emulated web account: conversations and files. */
import { PluginStore } from './plugins';
import { randomHex } from './util';

export interface WebAuthor {
  role: string;
  name: string | null;
  metadata: Record<string, unknown>;
}

/** A message exactly as the web upstream sends and stores it. */
export interface WebMessage {
  id: string;
  author: WebAuthor;
  create_time: number | null;
  update_time: number | null;
  content: Record<string, unknown>;
  status: string;
  end_turn: boolean | null;
  weight: number;
  metadata: Record<string, unknown>;
  recipient: string;
}

export interface MappingNode {
  id: string;
  message: WebMessage | null;
  parent: string | null;
  children: string[];
}

export interface Conversation {
  id: string;
  title: string;
  /** Epoch seconds (float). */
  createTime: number;
  updateTime: number;
  mapping: Record<string, MappingNode>;
  currentNode: string;
  pluginIds: string[] | null;
  model: string;
  isVisible: boolean;
  /** Epoch ms when a code interpreter kernel started in this conversation. */
  kernelStartedAt: number | null;
  /** Creation order, to break ties between equal update times. */
  seq: number;
}

export interface StoredFile {
  id: string;
  name: string;
  size: number;
  useCase: string;
  mimeType: string;
  /** SAS-like signature required by the blob PUT. */
  sig: string;
  bytes: Buffer | null;
  /** `POST files/{id}/uploaded` was called (allowed once). */
  uploadedConfirmed: boolean;
  createdAt: number;
}

export class EmulatorState {
  readonly conversations = new Map<string, Conversation>();
  readonly files = new Map<string, StoredFile>();
  readonly plugins = new PluginStore();
  private conversationSeq = 0;

  nextConversationSeq(): number {
    return ++this.conversationSeq;
  }

  /** Takes back conversations kept from an earlier run (see `persistence.ts`). */
  restore(conversations: readonly Conversation[]): void {
    for (const c of conversations) {
      this.conversations.set(c.id, c);
      this.conversationSeq = Math.max(this.conversationSeq, c.seq);
    }
  }

  reset(): void {
    this.conversations.clear();
    this.files.clear();
    this.plugins.reset();
  }

  /** Visible conversations, most recently updated first. */
  visibleConversations(): Conversation[] {
    return [...this.conversations.values()]
      .filter((c) => c.isVisible)
      .sort((a, b) => b.updateTime - a.updateTime || b.seq - a.seq);
  }

  /** Registers a file the emulator produced itself (already uploaded). */
  addGeneratedFile(id: string, name: string, mimeType: string, bytes: Buffer): StoredFile {
    const existing = this.files.get(id);
    if (existing) return existing;
    const file: StoredFile = {
      id,
      name,
      size: bytes.length,
      useCase: 'generated',
      mimeType,
      sig: randomHex(16),
      bytes,
      uploadedConfirmed: true,
      createdAt: Date.now(),
    };
    this.files.set(id, file);
    return file;
  }
}

export function guessMimeType(name: string): string {
  const ext = name.toLowerCase().split('.').pop() ?? '';
  const types: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    pdf: 'application/pdf',
    txt: 'text/plain',
    md: 'text/markdown',
    csv: 'text/csv',
    json: 'application/json',
  };
  return types[ext] ?? 'application/octet-stream';
}
