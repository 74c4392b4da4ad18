/** Image types the web source accepts as image parts (and the server serves as images). */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Most characters of a question's text (`text_content`): the composer says so before a longer one is sent. */
export const MAX_ASK_TEXT_CHARS = 100_000;

/** Largest import accepted (the request body): bigger files are refused before they are read. */
export const IMPORT_MAX_BYTES = 8 * 1024 * 1024;

/** Most characters of a username (after trimming). */
export const USERNAME_MAX_CHARS = 32;
/** Most characters of a nickname (after trimming). */
export const NICKNAME_MAX_CHARS = 64;

/** The largest whole number a record keeps (PostgreSQL's `integer`): ids, counts and limits above it are refused. */
export const MAX_STORED_INT = 2_147_483_647;
