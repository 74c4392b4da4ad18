// The account dialogs (profile with My usage, reset password) load when first opened: the header that offers them is
// on every page, the login page included, and they would otherwise weigh on every first load.

export function openProfileModal(): void {
  void import('./components/profile-modal').then((m) => m.openProfileModal());
}

export function openResetPasswordModal(): void {
  void import('./components/reset-password-modal').then((m) => m.openResetPasswordModal());
}
