import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_MESSAGE_KEYS, CHAT_CLOSE, SOURCES } from '@cc/contracts';
import adminEnUS from './admin.en-US.json';
import adminZhCN from './admin.zh-CN.json';
import { resources } from './index';

function flatten(value: unknown, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (child && typeof child === 'object') Object.assign(out, flatten(child, full));
    else out[full] = child;
  }
  return out;
}

// Every string i18next gets: the first page's resources, and admin.*.json (added with the pages that use them).
const en = { ...flatten(adminEnUS), ...flatten(resources['en-US'].translation) };
const zh = { ...flatten(adminZhCN), ...flatten(resources['zh-CN'].translation) };
const SRC = path.resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

describe('translations', () => {
  it('zh-CN and en-US have the same keys, all non-empty strings', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const value of [...Object.values(en), ...Object.values(zh)]) {
      expect(typeof value).toBe('string');
      expect((value as string).length).toBeGreaterThan(0);
    }
  });

  it('cover every message key the server can send (ALL_MESSAGE_KEYS) and every close reason', () => {
    const reasons = Object.values(CHAT_CLOSE)
      .map((c) => c.reason)
      .filter(Boolean);
    for (const key of [...ALL_MESSAGE_KEYS, ...reasons]) {
      expect(en, `en-US misses ${key}`).toHaveProperty([key]);
      expect(zh, `zh-CN misses ${key}`).toHaveProperty([key]);
    }
  });

  it('cover every literal key used in the code, and the dynamic ones', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bt\(\s*['"]([A-Za-z0-9_.]+)['"]/g)) used.add(m[1]!);
      for (const m of text.matchAll(/'((?:chat\.close|validation|errors|tips)\.[A-Za-z0-9_.]+)'/g))
        used.add(m[1]!);
    }
    for (const source of SOURCES) used.add(`sources.${source}`);
    for (const status of ['asking', 'queueing', 'idling']) used.add(`chatStatus.${status}`);
    expect(used.size).toBeGreaterThan(100);
    const missing = [...used].filter((key) => !(key in en));
    expect(missing).toEqual([]);
  });

  it('name settings as the admin pages do, never by their path in the config (openai_web.chatgpt_base_url)', () => {
    const path = /\b(openai_web|openai_api|common|http|data|auth|stats|log|user_defaults|billing)\.[a-z_]+/;
    const named = [...Object.entries(en), ...Object.entries(zh)].filter(([, value]) =>
      path.test(String(value)),
    );
    expect(named).toEqual([]);
  });

  it('has zh-CN as the default language', async () => {
    const { DEFAULT_LANGUAGE, i18n } = await import('./index');
    expect(DEFAULT_LANGUAGE).toBe('zh-CN');
    expect(i18n.t('header.notLoggedIn', { lng: 'zh-CN' })).toBe('未登录');
    expect(i18n.t('header.greeting', { lng: 'en-US', nickname: 'Ann' })).toBe('Hi, Ann');
  });
});
