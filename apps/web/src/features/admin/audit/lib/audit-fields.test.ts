import { beforeAll, describe, expect, it } from 'vitest';
import { MASKED_SECRET } from '@cc/contracts';
import { i18n } from '../../../../i18n';
import en from '../../../../i18n/admin.en-US.json';
import zh from '../../../../i18n/admin.zh-CN.json';
import { adminKey } from '../../shared/admin-i18n';
import type { AdminKey } from '../../shared/admin-i18n';
import { auditNames } from './audit-fields';
import { changeLines } from './audit-text';

const words = { none: '—', yes: 'Yes', no: 'No', secret: '(hidden)' };
const ta = (key: AdminKey, options?: Record<string, unknown>) => i18n.t(adminKey(key), options ?? {});
const exists = (key: string) => i18n.exists(key);
const lines = (action: Parameters<typeof auditNames>[0], changes: Record<string, [unknown, unknown]>) =>
  changeLines(changes, words, auditNames(action, ta, i18n.t, exists));

beforeAll(async () => {
  await i18n.changeLanguage('en-US');
});

describe('audit field names', () => {
  it('names the fields of every kind of record in both languages, the same fields', () => {
    expect(Object.keys(zh.adminx.audit.fields).sort()).toEqual(Object.keys(en.adminx.audit.fields).sort());
  });

  it("names a user's quotas as the quotas form does, lists in words", () => {
    expect(
      lines('user.settings', {
        'openai_web.total_ask_count': [100, 7],
        'openai_api.rate_limits': [[], [{ window_seconds: 60, max_requests: 5 }]],
        'openai_api.available_models': [['gpt_4'], ['gpt_4', 'gpt_3_5']],
        'openai_api.custom_openai_api_settings.key': [null, MASKED_SECRET],
        credits: [null, 5],
      }),
    ).toEqual([
      'Budget: — → 5',
      'OpenAI API › Available models: GPT-4 → GPT-4; GPT-3.5',
      'OpenAI API › Own API key: — → (hidden)',
      'OpenAI API › Rate limits: — → Window (seconds) 60, Max asks 5',
      'OpenAI Web › Total asks left: 100 → 7',
    ]);
  });

  it("names a group's template and budgets like a user's quotas, and its own fields", () => {
    const [budget, members, name] = lines('group.update', {
      'budgets.daily_budget': [1, 2],
      members: [null, 3],
      name: ['a', 'b'],
    });
    expect(budget).toMatch(/^Daily budget.*: 1 → 2$/);
    expect([members, name]).toEqual(['Members: — → 3', 'Name: a → b']);
  });

  it('names config fields as the config page does, options in words', () => {
    expect(lines('config.update', { 'stats.audit_log_ttl': [31536000, 86400] })).toEqual([
      'Statistics › Keep the audit log (seconds): 31536000 → 86400',
    ]);
    const [level] = lines('config.update', { 'log.console_log_level': ['INFO', 'DEBUG'] });
    expect(level).not.toContain('console_log_level');
  });

  it("names other records' fields and a source in words, in Chinese too", async () => {
    expect(lines('server.create', { source: [null, 'openai_api'], max_concurrency: [null, 4] })).toEqual([
      'Max concurrency: — → 4',
      'Source: — → OpenAI API',
    ]);
    await i18n.changeLanguage('zh-CN');
    try {
      expect(lines('user.update', { is_superuser: [false, true] })).toEqual(['管理员: No → Yes']);
    } finally {
      await i18n.changeLanguage('en-US');
    }
  });

  it("names the settings a user's move into a group changed beside the group itself", () => {
    expect(lines('user.update', { group_id: [null, 3], credits: [-1, 5] })).toEqual([
      'Budget: Unlimited → 5',
      'Group: — → 3',
    ]);
  });

  it("names what a group's deletion changed for a member in words, in both languages", async () => {
    // The entry each member gets when their group is deleted (see group.service `deleteGroup`).
    const changes: Record<string, [unknown, unknown]> = {
      group_id: [3, null],
      group: ['Team A', null],
      credits: [7, -1],
      'openai_api.max_conv_count': [3, 10],
    };
    expect(lines('user.update', changes)).toEqual([
      'Budget: 7 → Unlimited',
      'Group: Team A → —',
      'OpenAI API › Max conversations: 3 → 10',
    ]);
    await i18n.changeLanguage('zh-CN');
    try {
      expect(lines('user.update', changes)).toEqual([
        '总预算: 7 → 无限制',
        '用户组: Team A → —',
        'OpenAI API › 最大对话数: 3 → 10',
      ]);
    } finally {
      await i18n.changeLanguage('en-US');
    }
  });

  it('keeps a -1 of the config as a number (a retention of -1 keeps forever)', () => {
    expect(lines('config.update', { 'stats.audit_log_ttl': [-1, 60] })).toEqual([
      'Statistics › Keep the audit log (seconds): -1 → 60',
    ]);
  });

  it('keeps the name of a field it has no words for', () => {
    expect(lines('user.update', { something_new: [1, 2] })).toEqual(['something_new: 1 → 2']);
  });
});
