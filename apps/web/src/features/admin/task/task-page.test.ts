import { describe, expect, it } from 'vitest';
import { i18n } from '../../../i18n';
import { formatInterval } from './task-page';

describe('formatInterval', () => {
  it('words each part in the current language', async () => {
    const words = (name: string, count: number) => i18n.t(`adminx.task.units.${name}`, { count });
    await i18n.changeLanguage('en-US');
    expect(formatInterval(5400, words)).toBe('1 h 30 min');
    expect(formatInterval(0, words)).toBe('0 s');
    await i18n.changeLanguage('zh-CN');
    expect(formatInterval(90_061, words)).toBe('1 天 1 小时 1 分钟 1 秒');
  });
});
