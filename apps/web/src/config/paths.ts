/** The one registry of every URL the client builds: app routes and API endpoints. */
import { hasInvisible } from '@cc/contracts';

/**
 * Only a path on this site is accepted as a post-login target (no open redirect): it must stay on the origin once a
 * browser has read it, which drops tabs and line breaks and takes `\` for `/` ("/\t/evil.example" is
 * "//evil.example"), so control and invisible format characters and backslashes are refused outright.
 */
export function isSafeRedirect(target: string | null | undefined): target is string {
  if (!target?.startsWith('/') || target.includes('\\') || hasInvisible(target)) return false;
  const here = 'http://here.invalid';
  try {
    return new URL(target, here).origin === here;
  } catch {
    return false;
  }
}

function withQuery(path: string, query: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export const ADMIN_PAGES = [
  'system',
  'user',
  'conversation',
  'machine',
  'task',
  'log',
  'openai_settings',
  'config',
  'audit',
  'usage',
  'invite',
] as const;
export type AdminPage = (typeof ADMIN_PAGES)[number];

export const paths = {
  root: '/',
  home: '/home',
  login: (redirect?: string | null) =>
    withQuery('/login', { redirect: isSafeRedirect(redirect) ? redirect : null }),
  /** `message`: a message to scroll to and highlight (a search result). */
  conversation: (conversationId?: string | null, messageId?: string | null) =>
    withQuery('/conversation', { id: conversationId, message: messageId }),
  history: (conversationId: string) => `/conv/${encodeURIComponent(conversationId)}`,
  /** A share link's public page. */
  share: (token: string) => `/share/${encodeURIComponent(token)}`,
  /** An invite link's public page (create an account). */
  invite: (token: string) => `/invite/${encodeURIComponent(token)}`,
  admin: (page: AdminPage = 'system') => `/admin/${page}`,
  redirect: (target: string) => `/redirect/${encodeURIComponent(target.replace(/^\//, ''))}`,
  forbidden: '/error/403',
  notFound: '/error/404',
} as const;

const conv = (id: string) => `/api/conv/${encodeURIComponent(id)}`;

export const apiPaths = {
  login: '/api/auth/login',
  logout: '/api/auth/logout',
  me: '/api/user/me',
  /** What the login page offers besides the password (single sign-on). */
  authOptions: '/api/auth/options',
  /** GET: whether an invite link works; POST: create an account through it. */
  invite: (token: string) => `/api/invite/${encodeURIComponent(token)}`,
  myUsage: '/api/user/me/usage',
  conversations: '/api/conv',
  /** One page of the user's list, after the previous page's last conversation. */
  conversationPage: (limit: number, after?: string) => withQuery('/api/conv', { limit, after }),
  pinConversation: (id: string) => `${conv(id)}/pin`,
  searchConversations: (q: string) => withQuery('/api/conv/search', { q }),
  conversation: conv,
  /** A blank title is sent as one (the conversation becomes untitled), not left out. */
  renameConversation: (id: string, title: string) =>
    `${conv(id)}?${new URLSearchParams({ title }).toString()}`,
  currentNode: (id: string) => `${conv(id)}/current-node`,
  generateTitle: (id: string, messageId: string) =>
    withQuery(`${conv(id)}/gen_title`, { message_id: messageId }),
  /** The user's own share links. */
  shares: '/api/conv/shares',
  /** POST: a new share link of the conversation; DELETE: revoke all of its links. */
  conversationShares: (id: string) => `${conv(id)}/shares`,
  share: (shareId: number) => `/api/conv/shares/${shareId}`,
  /** The public view behind a share link. */
  sharedView: (token: string) => `/api/share/${encodeURIComponent(token)}`,
  /** A file the shared conversation shows (its images, attachments), for anyone with the link. */
  sharedFile: (token: string, fileId: string) =>
    `/api/share/${encodeURIComponent(token)}/files/${encodeURIComponent(fileId)}`,
  exportConversation: (id: string, format: 'json' | 'md') => withQuery(`${conv(id)}/export`, { format }),
  exportAll: '/api/conv/export.zip',
  importConversation: '/api/conv/import',
  installedPlugins: '/api/chat/openai-plugins/installed',
  commonStatus: '/api/status/common',
  /** An uploaded or generated file (`file-service://<id>` pointers); the server streams or redirects. */
  fileDownload: (fileId: string) => `/api/files/openai-web/${encodeURIComponent(fileId)}/content`,
  /** The upstream's short-lived download URL of a file (JSON). */
  fileDownloadUrl: (fileId: string) => `/api/files/openai-web/${encodeURIComponent(fileId)}/download-url`,
  /** Step one of every openai_web upload: the server picks the strategy. */
  uploadStart: '/api/files/openai-web/upload-start',
  /** After the browser PUT the bytes to the signed URL. */
  uploadComplete: (id: string) => `/api/files/openai-web/upload-complete/${encodeURIComponent(id)}`,
  /** Multipart upload of the bytes to the server (field `file`). */
  localUpload: (useCase?: string | null) => withQuery('/api/files/local/upload', { use_case: useCase }),
  /** The server sends its copy of an uploaded file on to the upstream. */
  localUploadToOpenaiWeb: (id: string) => `/api/files/local/upload-to-openai-web/${encodeURIComponent(id)}`,
  /** A file the code interpreter wrote (`sandbox:` links), streamed by the server. */
  interpreterDownload: (conversationId: string, messageId: string, sandboxPath: string) =>
    withQuery(`${conv(conversationId)}/interpreter/download`, {
      message_id: messageId,
      sandbox_path: sandboxPath,
    }),
  /** The chat websocket on the page's own host, secure when the page is. */
  chatSocket: (location: Pick<Location, 'protocol' | 'host'> = window.location) =>
    `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/api/chat`,
} as const;

/** Paths whose 10401 answer must not open the login-expired dialog. */
export const AUTH_DIALOG_EXEMPT: readonly string[] = [apiPaths.login, apiPaths.logout];
