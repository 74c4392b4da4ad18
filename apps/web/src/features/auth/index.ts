export { LoginPage } from './components/login-page';
export { openProfileModal } from './components/profile-modal';
export { openResetPasswordModal } from './components/reset-password-modal';
export { confirmLogout, performLogout } from './components/logout';
export { InviteRoute } from './components/invite-page';
