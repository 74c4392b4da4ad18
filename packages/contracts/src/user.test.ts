import { describe, expect, it } from 'vitest';
import { VALIDATION_MESSAGES } from './errors';
import { InviteAccept } from './invite';
import { UserCreate, UserUpdateAdmin, Username } from './user';

const messages = (input: unknown) => {
  const parsed = Username.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => i.message);
};

describe('Username', () => {
  it('keeps one form of a name: full-width and other compatibility letters become the plain ones', () => {
    expect(Username.parse('ａｄｍｉｎ')).toBe('admin');
    expect(Username.parse('Ｊｏｈｎ＿２')).toBe('John_2');
    // NFKC: a ligature and a composed letter written in two code points.
    expect(Username.parse('ﬁsh')).toBe('fish');
    expect(Username.parse('Åsa')).toBe('Åsa');
    // An ideographic space at the end is trimmed like any other.
    expect(Username.parse('ａｌｉｃｅ\u3000')).toBe('alice');
  });

  it('refuses Latin letters mixed with Cyrillic or Greek ones', () => {
    for (const name of ['аdmin', 'pаypal', 'Αlice', 'micrоsoft', 'adminα', 'иванivan']) {
      expect([name, messages(name)]).toEqual([name, [VALIDATION_MESSAGES.usernameMixedScript]]);
    }
  });

  it('takes names of one script, and Han, kana or Hangul with Latin letters; digits and punctuation anywhere', () => {
    for (const name of [
      'admin',
      'zhang.san-2',
      '张三',
      '张三_zhang3',
      '李四.Li',
      '田中たろう',
      'タナカ_taro',
      '김민수',
      '김minsu',
      'ㄅㄆ李',
      'иван',
      'Ελένη',
      'José_Núñez',
      'user@team',
    ]) {
      expect([name, messages(name)]).toEqual([name, []]);
    }
  });

  it('applies to every new name: create, invite sign-up and rename', () => {
    const base = { email: 'a@example.com', password: 'secret-pass-1', nickname: 'A' };
    expect(UserCreate.parse({ ...base, username: 'ｂｏｂ' }).username).toBe('bob');
    expect(UserCreate.safeParse({ ...base, username: 'bоb' }).success).toBe(false);
    expect(InviteAccept.parse({ username: 'ｂｏｂ', password: 'secret-pass-1' }).username).toBe('bob');
    expect(InviteAccept.safeParse({ username: 'bоb', password: 'secret-pass-1' }).success).toBe(false);
    expect(UserUpdateAdmin.parse({ username: 'ｂｏｂ' }).username).toBe('bob');
    expect(UserUpdateAdmin.safeParse({ username: 'bоb' }).success).toBe(false);
    // An edit without a new name leaves the name alone (the admin page sends only what changed).
    expect(UserUpdateAdmin.parse({ remark: 'x' })).toEqual({ remark: 'x' });
  });
});
