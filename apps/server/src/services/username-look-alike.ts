import unhomoglyph from 'unhomoglyph';
import { ERROR_DETAILS } from '@cc/contracts';
import { fail } from '../errors/app-error';
import type { Executor } from '../repositories/executor';
import { userRepository } from '../repositories/user.repository';

/** A name without case, close to Unicode's NFKC_Casefold ("ß" is "ss", "Ａ" is "a"). */
function fold(text: string): string {
  return text.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}

/** The UTS #39 skeleton: each character replaced by the one it passes for ("аdmin" → "admin", "m" → "rn"). */
function skeleton(text: string): string {
  return unhomoglyph(text.normalize('NFD')).normalize('NFD');
}

/**
 * What usernames are compared by: two look alike when they share a key. The skeleton of the name as written (a
 * capital "I" passes for "l") and of the name without case ("ADMIN" is "admin"), each without case.
 */
export function lookAlikeKeys(username: string): string[] {
  const name = username.normalize('NFKC');
  return [...new Set([fold(skeleton(name)), fold(skeleton(fold(name)))])];
}

/** Finds the given names a username looks like, from their keys computed once. */
function namesByKey(names: readonly string[]): { get(username: string): string[] } {
  const byKey = new Map<string, string[]>();
  for (const name of names) {
    for (const key of lookAlikeKeys(name)) {
      const same = byKey.get(key);
      if (same) same.push(name);
      else byKey.set(key, [name]);
    }
  }
  return { get: (username) => [...new Set(lookAlikeKeys(username).flatMap((key) => byKey.get(key) ?? []))] };
}

/**
 * Refuses a new username (create, invite sign-up, rename) that another user has in any case (`userAlreadyExists`)
 * or that looks like another user's (`usernameLookAlike`). The similar name is told to an admin (`nameOther`), not
 * to someone choosing their own name. Names given before this check stay as they are.
 */
export async function assertUsernameFree(
  db: Executor,
  username: string,
  options: {
    /** The user being renamed: their own name in another look is no one else's. */
    exceptId?: number;
    /** Name the existing user in the refusal. */
    nameOther: boolean;
  },
): Promise<void> {
  const others = namesByKey(await userRepository(db).listUsernames(options.exceptId)).get(username);
  const [other] = others;
  if (other === undefined) return;
  if (others.some((name) => fold(name) === fold(username)))
    throw fail.userAlreadyExists(ERROR_DETAILS.username, { username });
  throw options.nameOther
    ? fail.usernameLookAlike(ERROR_DETAILS.usernameLookAlikeOf, { username: other })
    : fail.usernameLookAlike(ERROR_DETAILS.username, { username });
}

/** The name when it looks like no user's, else the name with the lowest number ("bob_2") that looks like none. */
export async function freeUsernameLike(db: Executor, base: string): Promise<string> {
  const taken = namesByKey(await userRepository(db).listUsernames());
  if (taken.get(base).length === 0) return base;
  for (let n = 2; n < 1000; n += 1) {
    const candidate = `${base}_${n}`;
    if (taken.get(candidate).length === 0) return candidate;
  }
  return `${base}_${Date.now().toString(36)}`;
}
