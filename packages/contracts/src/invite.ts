import { z } from 'zod';
import { Email, Nickname, Password, Username } from './user';
import { RowId, RowIdParam } from './ids';

/** `GET /api/auth/options` (public): what the login page offers besides the password form. */
export const AuthOptions = z.object({
  sso: z
    .object({
      /** Words of the button ("Sign in with …"). */
      label: z.string(),
      /** Where the button goes (a full-page navigation, not a fetch). */
      start_path: z.string(),
    })
    .nullable(),
});
export type AuthOptions = z.infer<typeof AuthOptions>;

/** Why an invite link cannot be used. */
export const INVITE_REFUSALS = ['unknown', 'revoked', 'expired', 'used_up'] as const;
export const InviteRefusal = z.enum(INVITE_REFUSALS);
export type InviteRefusal = z.infer<typeof InviteRefusal>;

/** An invite link as the admin sees it (the token is shown once, when it is made). */
export const InviteRead = z.object({
  id: z.number().int(),
  /** When it stops working (ISO UTC). */
  expires_at: z.string(),
  /** Accounts it may still create in all; null = unlimited. */
  max_uses: z.number().int().nullable(),
  /** Accounts it created so far. */
  uses: z.number().int(),
  /** The group new accounts join; null = none. */
  group_id: z.number().int().nullable(),
  group_name: z.string().nullable(),
  created_at: z.string(),
  /** Who made it (username), null when deleted since. */
  created_by: z.string().nullable(),
  revoked_at: z.string().nullable(),
  /** Whether it still works now. */
  usable: z.boolean(),
});
export type InviteRead = z.infer<typeof InviteRead>;

/** `POST /api/system/invites`: the new link with its token (the page to open is `/invite/{token}`). */
export const InviteCreated = InviteRead.extend({ token: z.string() });
export type InviteCreated = z.infer<typeof InviteCreated>;

/** Longest an invite may stay open: 90 days. */
export const INVITE_MAX_HOURS = 24 * 90;

export const InviteCreate = z.object({
  /** Hours from now until the link stops working. */
  expires_in_hours: z.number().int().min(1).max(INVITE_MAX_HOURS),
  /** 1 = single use; null = unlimited. */
  max_uses: z.number().int().min(1).max(10_000).nullable(),
  /** A group new accounts join; null = none. */
  group_id: RowId.nullable().default(null),
});
export type InviteCreate = z.infer<typeof InviteCreate>;

export const InviteIdParams = z.object({ invite_id: RowIdParam });
export const InviteTokenParams = z.object({ token: z.string().min(1).max(128) });

/** `GET /api/invite/{token}` (public): whether the link works, and what the page may offer. */
export const InviteStatus = z.object({
  usable: z.boolean(),
  /** Why not, when it does not work. */
  refusal: InviteRefusal.nullable(),
  expires_at: z.string().nullable(),
  /** The path that signs in with the provider through this invite; null when single sign-on is off. */
  sso_start_path: z.string().nullable(),
  sso_label: z.string().nullable(),
});
export type InviteStatus = z.infer<typeof InviteStatus>;

/** `POST /api/invite/{token}` (public): the new account's name and password (the password rules apply). */
export const InviteAccept = z.object({
  username: Username,
  password: Password,
  nickname: Nickname.optional(),
  email: Email.optional(),
});
export type InviteAccept = z.infer<typeof InviteAccept>;
