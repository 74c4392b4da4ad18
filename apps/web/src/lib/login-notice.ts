/**
 * "Logged in" is said on the page the user lands on. The login page opened directly is a page of its own and
 * leaves with a full navigation, so it leaves the notice in sessionStorage for the app's first page to show.
 */
const KEY = 'cc-login-notice';

export function leaveLoginNotice(): void {
  try {
    window.sessionStorage.setItem(KEY, '1');
  } catch {
    // No storage: the page after logging in says nothing, nothing else changes.
  }
}

/** True once after leaveLoginNotice (the notice is taken). */
export function takeLoginNotice(): boolean {
  try {
    if (window.sessionStorage.getItem(KEY) === null) return false;
    window.sessionStorage.removeItem(KEY);
    return true;
  } catch {
    return false;
  }
}
