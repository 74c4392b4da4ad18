import { UserCreate, UserUpdateAdmin, VALIDATION_MESSAGES } from '@cc/contracts';
import type { UserReadAdmin } from '@cc/contracts';
import type { PathIssue } from '../../shared/form-errors';

/** The basic-fields form of create and edit. */
export interface UserFormValues {
  username: string;
  nickname: string;
  email: string;
  /** Create: required. Edit: blank = unchanged. */
  password: string;
  /** Image URL; blank = none. */
  avatar: string;
  remark: string;
  is_active: boolean;
  is_superuser: boolean;
  is_verified: boolean;
}

export const EMPTY_USER_FORM: UserFormValues = {
  username: '',
  nickname: '',
  email: '',
  password: '',
  avatar: '',
  remark: '',
  is_active: true,
  is_superuser: false,
  is_verified: false,
};

export function userToForm(user: UserReadAdmin): UserFormValues {
  return {
    username: user.username,
    nickname: user.nickname,
    email: user.email,
    password: '',
    avatar: user.avatar ?? '',
    remark: user.remark ?? '',
    is_active: user.is_active,
    is_superuser: user.is_superuser,
    is_verified: user.is_verified,
  };
}

const REQUIRED: Partial<Record<keyof UserFormValues, string>> = {
  username: VALIDATION_MESSAGES.usernameRequired,
  nickname: VALIDATION_MESSAGES.nicknameRequired,
  email: VALIDATION_MESSAGES.emailRequired,
  password: VALIDATION_MESSAGES.passwordRequired,
};

function toIssues(
  values: UserFormValues,
  required: readonly (keyof UserFormValues)[],
  issues: readonly PathIssue[],
): PathIssue[] {
  // SPEC §5: an empty required field says "please enter …" rather than the format rule.
  const out: PathIssue[] = required
    .filter((field) => String(values[field]).trim() === '')
    .map((field) => ({ path: [field], message: REQUIRED[field] ?? VALIDATION_MESSAGES.usernameRequired }));
  const empty = new Set(out.map((i) => String(i.path[0])));
  for (const issue of issues) if (!empty.has(String(issue.path[0]))) out.push(issue);
  return out;
}

export function createPayload(values: UserFormValues): UserCreate {
  return {
    username: values.username.trim(),
    nickname: values.nickname.trim(),
    email: values.email.trim(),
    password: values.password,
    avatar: values.avatar.trim() === '' ? null : values.avatar.trim(),
    remark: values.remark.trim() === '' ? null : values.remark.trim(),
    is_active: values.is_active,
    is_superuser: values.is_superuser,
    is_verified: values.is_verified,
  };
}

/** Validates with the contract's UserCreate schema, after the required-field checks. */
export function validateCreate(values: UserFormValues): PathIssue[] {
  const parsed = UserCreate.safeParse(createPayload(values));
  return toIssues(
    values,
    ['username', 'nickname', 'email', 'password'],
    parsed.success ? [] : parsed.error.issues,
  );
}

/** Only what changed, so a PATCH never rewrites fields the admin did not touch. */
export function updatePayload(values: UserFormValues, user: UserReadAdmin): UserUpdateAdmin {
  const before = userToForm(user);
  const patch: UserUpdateAdmin = {};
  if (values.username.trim() !== before.username) patch.username = values.username.trim();
  if (values.nickname.trim() !== before.nickname) patch.nickname = values.nickname.trim();
  if (values.email.trim() !== before.email) patch.email = values.email.trim();
  if (values.password !== '') patch.password = values.password;
  if (values.avatar.trim() !== before.avatar)
    patch.avatar = values.avatar.trim() === '' ? null : values.avatar.trim();
  if (values.remark.trim() !== before.remark)
    patch.remark = values.remark.trim() === '' ? null : values.remark.trim();
  if (values.is_active !== before.is_active) patch.is_active = values.is_active;
  if (values.is_superuser !== before.is_superuser) patch.is_superuser = values.is_superuser;
  if (values.is_verified !== before.is_verified) patch.is_verified = values.is_verified;
  return patch;
}

export function validateUpdate(values: UserFormValues, user: UserReadAdmin): PathIssue[] {
  const parsed = UserUpdateAdmin.safeParse(updatePayload(values, user));
  return toIssues(values, ['username', 'nickname', 'email'], parsed.success ? [] : parsed.error.issues);
}
