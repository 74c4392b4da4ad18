import { describe, expect, it } from 'vitest';
import { adminUser } from '../../shared/fixtures';
import {
  EMPTY_USER_FORM,
  createPayload,
  updatePayload,
  userToForm,
  validateCreate,
  validateUpdate,
} from './user-form';

const messages = (issues: { path: readonly PropertyKey[]; message: string }[]) =>
  Object.fromEntries(issues.map((i) => [String(i.path[0]), i.message]));

describe('user create form', () => {
  it('asks for every required field with the SPEC §5 messages', () => {
    expect(messages(validateCreate(EMPTY_USER_FORM))).toEqual({
      username: 'validation.usernameRequired',
      nickname: 'validation.nicknameRequired',
      email: 'validation.emailRequired',
      password: 'validation.passwordRequired',
    });
  });

  it('checks the email format and the password rule', () => {
    const values = { ...EMPTY_USER_FORM, username: 'bob', nickname: 'Bob', email: 'nope', password: 'short' };
    expect(messages(validateCreate(values))).toEqual({
      email: 'validation.invalidEmail',
      password: 'validation.passwordRule',
    });
    expect(messages(validateCreate({ ...values, username: 'b o b' }))).toHaveProperty(
      'username',
      'validation.usernameNoSpaces',
    );
  });

  it('says a username or nickname is too long (not that it is missing)', () => {
    const values = { ...EMPTY_USER_FORM, email: 'bob@example.com', password: 'secret-pass-1' };
    expect(
      messages(validateCreate({ ...values, username: 'u'.repeat(33), nickname: 'N'.repeat(65) })),
    ).toEqual({
      username: 'validation.usernameTooLong',
      nickname: 'validation.nicknameTooLong',
    });
    expect(validateCreate({ ...values, username: 'u'.repeat(32), nickname: 'N'.repeat(64) })).toEqual([]);
  });

  it('builds the register body with flags and a null remark', () => {
    const values = {
      ...EMPTY_USER_FORM,
      username: ' bob ',
      nickname: 'Bob',
      email: 'bob@example.com',
      password: 'secret-123',
      is_superuser: true,
    };
    expect(validateCreate(values)).toEqual([]);
    expect(createPayload(values)).toEqual({
      username: 'bob',
      nickname: 'Bob',
      email: 'bob@example.com',
      password: 'secret-123',
      avatar: null,
      remark: null,
      is_active: true,
      is_superuser: true,
      is_verified: false,
    });
    expect(createPayload({ ...values, avatar: ' https://example.com/bob.png ' }).avatar).toBe(
      'https://example.com/bob.png',
    );
  });
});

describe('user edit form', () => {
  it('sends only what changed; a blank password is unchanged', () => {
    const user = adminUser({ remark: 'old' });
    const values = { ...userToForm(user), username: 'ann2', remark: '', is_active: false };
    expect(updatePayload(values, user)).toEqual({ username: 'ann2', remark: null, is_active: false });
    expect(validateUpdate(values, user)).toEqual([]);
    expect(updatePayload(userToForm(user), user)).toEqual({});
  });

  it('validates a new password and required fields', () => {
    const user = adminUser();
    const values = { ...userToForm(user), password: 'a b', nickname: ' ' };
    expect(messages(validateUpdate(values, user))).toEqual({
      password: 'validation.passwordRule',
      nickname: 'validation.nicknameRequired',
    });
  });
});
