import { describe, expect, it } from 'vitest';
import { lookAlikeKeys } from './username-look-alike';

const alike = (a: string, b: string) => lookAlikeKeys(a).some((key) => lookAlikeKeys(b).includes(key));

describe('look-alike usernames', () => {
  it('finds names that differ only in case, width or look-alike characters', () => {
    for (const [a, b] of [
      ['admin', 'ADMIN'],
      ['admin', 'ａｄｍｉｎ'],
      ['admin', 'аdmin'],
      ['modern', 'rnodern'],
      ['ace', 'асе'],
      ['Ian', 'lan'],
      ['user1', 'userl'],
      ['Émile', 'émile'],
      ['straße', 'STRASSE'],
    ] as const) {
      expect([a, b, alike(a, b)]).toEqual([a, b, true]);
    }
  });

  it('tells apart names that only share letters', () => {
    for (const [a, b] of [
      ['ian', 'lan'],
      ['ace', 'Ac3'],
      ['张三', '張三'],
      ['bob', 'bobby'],
    ] as const) {
      expect([a, b, alike(a, b)]).toEqual([a, b, false]);
    }
  });
});
