import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import adminEnUS from '../../../i18n/admin.en-US.json';
import adminZhCN from '../../../i18n/admin.zh-CN.json';
import enUS from '../../../i18n/en-US.json';
import zhCN from '../../../i18n/zh-CN.json';

function flatten(value: unknown, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (child && typeof child === 'object') Object.assign(out, flatten(child, full));
    else out[full] = child;
  }
  return out;
}

const en = flatten(adminEnUS);
const zh = flatten(adminZhCN);
const ADMIN_DIR = path.resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

describe('admin translations', () => {
  it('have the same keys in zh-CN and en-US, all non-empty strings', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const value of [...Object.values(en), ...Object.values(zh)]) {
      expect(typeof value).toBe('string');
      expect((value as string).length).toBeGreaterThan(0);
    }
  });

  it('never collide with the app strings they are merged into', () => {
    const app = { ...flatten(enUS), ...flatten(zhCN) };
    expect(Object.keys(en).filter((key) => key in app)).toEqual([]);
    expect(Object.keys(adminEnUS)).toEqual(['adminx']);
  });

  it('cover every key the admin pages use, and the app keys they borrow exist', async () => {
    const { i18n } = await import('../../../i18n');
    const missing: string[] = [];
    for (const file of sourceFiles(ADMIN_DIR)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bta\(\s*'([A-Za-z0-9_.]+)'/g))
        if (!(`adminx.${m[1]}` in en)) missing.push(`${path.basename(file)}: adminx.${m[1]}`);
      for (const m of text.matchAll(/\bt\(\s*'([A-Za-z0-9_.]+)'/g))
        for (const lng of ['zh-CN', 'en-US'])
          if (!i18n.exists(m[1]!, { lng })) missing.push(`${path.basename(file)}: ${m[1]} (${lng})`);
    }
    expect(missing).toEqual([]);
    expect(i18n.t('adminx.user.create', { lng: 'zh-CN' })).toBe('添加用户');
    expect(i18n.t('admin.userTitle', { lng: 'en-US' })).toBe('User management');
  });
});
