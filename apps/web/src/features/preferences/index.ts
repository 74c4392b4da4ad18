export { openPreferencesModal } from './open-dialog';
