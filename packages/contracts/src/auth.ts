import { z } from 'zod';
import { VALIDATION_MESSAGES as V } from './errors';

/** OAuth2-password-style login form (multipart or urlencoded). */
export const LoginForm = z.object({
  username: z.string({ message: V.usernameRequired }).min(1, { message: V.usernameRequired }),
  password: z.string({ message: V.passwordRequired }).min(1, { message: V.passwordRequired }),
  grant_type: z.literal('password', { message: V.grantTypePassword }).optional(),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
});
export type LoginForm = z.infer<typeof LoginForm>;

/** Name of the HttpOnly session cookie. */
export const SESSION_COOKIE = 'cc_session';
