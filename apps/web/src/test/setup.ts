import { LANGUAGES, loadAdminStrings } from '../i18n';

// Components render with every string, as the pages that show them do once loaded (the admin strings are fetched
// with the admin pages and the chat page in the app).
await loadAdminStrings(LANGUAGES);
