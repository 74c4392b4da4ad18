/** The one registry of the admin API URLs (superuser-only endpoints). */
import type { AuditQuery as AuditQueryShape, ChatSource, UsageGroup } from '@cc/contracts';

/** Audit log filters and page (every one optional). */
export type AuditQuery = Partial<AuditQueryShape>;

type QueryValue = string | number | boolean | undefined | null;

/** Appends the defined, non-empty values as a query string; arrays are not needed by any admin call. */
export function withQuery(path: string, query: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

const enc = encodeURIComponent;
const conv = (id: string) => `/api/conv/${enc(id)}`;

export interface AllConversationsQuery {
  valid_only?: boolean;
  source?: ChatSource;
  user_id?: number;
  /** Part of a title or of a message's text, or the start of the conversation id (searched on the server). */
  q?: string;
  is_valid?: boolean;
  sort?: string;
  order?: 'asc' | 'desc';
  offset?: number;
  limit?: number;
}

/** Filters of the admin user list (searched on the server). */
export interface UserFilter {
  /** Part of a username, nickname, email or remark, or an id. */
  q?: string;
  /** A group id, or `none`. */
  group?: number | 'none';
  active?: boolean;
  superuser?: boolean;
}

/** A page of the admin user list. */
export interface UserListQuery extends UserFilter {
  sort?: string;
  order?: 'asc' | 'desc';
  offset?: number;
  limit?: number;
}

export interface PluginQuery {
  offset?: number;
  limit?: number;
  category?: string;
  search?: string;
}

export interface StatsQuery {
  /** Bucket size in seconds: 1800, 3600, 10800, 21600, 43200 or 86400. */
  granularity: number;
  /** ISO time (UTC). */
  start_time?: string;
  end_time?: string;
}

export interface UsageQuery {
  group: UsageGroup;
  /** ISO time (UTC). */
  start?: string;
  end?: string;
  user_id?: number;
}

export interface CompletionLogQuery {
  start_time?: string;
  end_time?: string;
  max_results?: number;
}

export const adminApiPaths = {
  // users
  users: (query: UserListQuery = {}) => withQuery('/api/user', { ...query }),
  /** Id and names of every user that matches (pickers, "select all that match"). */
  userRefs: (query: UserFilter & { limit?: number } = {}) => withQuery('/api/user/refs', { ...query }),
  user: (id: number) => `/api/user/${id}`,
  userSetting: (id: number) => `/api/user/${id}/setting`,
  resetChatStatus: (id: number) => `/api/user/${id}/reset-chat-status`,
  register: '/api/auth/register',
  groups: '/api/system/groups',
  group: (id: number) => `/api/system/groups/${id}`,
  invites: '/api/system/invites',
  invite: (id: number) => `/api/system/invites/${id}`,
  // conversations
  allConversations: (query: AllConversationsQuery = {}) => withQuery('/api/conv/all', { ...query }),
  conversation: conv,
  vanishConversation: (id: string) => `${conv(id)}/vanish`,
  /** Revokes every share link of the conversation. */
  conversationShares: (id: string) => `${conv(id)}/shares`,
  assignConversation: (id: string, username: string) => `${conv(id)}/assign/${enc(username)}`,
  syncConversations: '/api/system/action/sync-openai-web-conv',
  // servers
  machines: '/api/system/getAllMachine',
  machineInfo: '/api/system/queryMachineInfo',
  addMachine: '/api/system/addMachine',
  updateMachine: '/api/system/updateMachine',
  deleteMachine: (id: number) => `/api/system/delMachine/${id}`,
  checkMachines: '/api/system/checkMachines',
  // plugins
  plugins: (query: PluginQuery = {}) => withQuery('/api/chat/openai-plugins/all', { ...query }),
  installedPlugins: '/api/chat/openai-plugins/installed',
  plugin: (id: string) => `/api/chat/openai-plugin/${enc(id)}`,
  pluginUserSettings: (id: string) =>
    withQuery(`/api/chat/openai-plugins/${enc(id)}/user-settings`, { plugin_id: id }),
  // system
  systemInfo: '/api/system/info',
  commonStatus: '/api/status/common',
  requestStats: (query: StatsQuery) => withQuery('/api/system/stats/request', { ...query }),
  askStats: (query: StatsQuery) => withQuery('/api/system/stats/ask', { ...query }),
  // tasks
  tasks: '/api/system/queryTask',
  task: (name: string) => `/api/system/task/${enc(name)}`,
  runTask: (name: string) => `/api/system/task/${enc(name)}/run`,
  taskRuns: (name: string, limit: number) => withQuery(`/api/system/task/${enc(name)}/runs`, { limit }),
  // logs
  serverLogs: '/api/system/logs/server',
  completionLogs: (query: CompletionLogQuery = {}) => withQuery('/api/system/logs/completions', { ...query }),
  // config
  config: '/api/system/config',
  configSchema: '/api/system/config/schema',
  credentials: '/api/system/credentials',
  // audit log
  audit: (query: AuditQuery = {}) => withQuery('/api/system/audit', { ...query }),
  auditCsv: (query: AuditQuery = {}) => withQuery('/api/system/audit.csv', { ...query }),
  // usage
  usage: (query: UsageQuery) => withQuery('/api/system/usage', { ...query }),
  usageCsv: (query: UsageQuery) => withQuery('/api/system/usage.csv', { ...query }),
} as const;
