export { LoginPage, alreadyLoggedInTarget } from './components/login-page';
export { openProfileModal, openResetPasswordModal } from './open-dialogs';
export { confirmLogout, performLogout } from './components/logout';
