export { openPreferencesModal } from './components/preferences-modal';
