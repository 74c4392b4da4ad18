import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, MASKED_SECRET } from '@cc/contracts';
import en from '../../../../i18n/admin.en-US.json';
import zh from '../../../../i18n/admin.zh-CN.json';
import { ACTION_KEYS, changeLines } from './audit-text';

const words = { none: '—', yes: 'Yes', no: 'No', secret: '(hidden)' };

function lookup(tree: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], tree);
}

describe('audit text', () => {
  it('every action has a label in both languages', () => {
    for (const action of AUDIT_ACTIONS) {
      const key = ACTION_KEYS[action];
      expect(typeof lookup(en.adminx, key), `${action} en-US`).toBe('string');
      expect(typeof lookup(zh.adminx, key), `${action} zh-CN`).toBe('string');
    }
  });

  it('reads changes as "field: before → after", secrets hidden, lists item by item (never JSON)', () => {
    expect(
      changeLines(
        {
          'openai_web.total_ask_count': [100, 3],
          is_active: [true, false],
          password: [MASKED_SECRET, MASKED_SECRET],
          remark: [null, 'new'],
          rate_limits: [[], [{ window_seconds: 60, max_requests: 5 }]],
          available_models: [['gpt_4'], ['gpt_4', 'gpt_3_5']],
        },
        words,
      ),
    ).toEqual([
      'available_models: gpt_4 → gpt_4; gpt_3_5',
      'is_active: Yes → No',
      'openai_web.total_ask_count: 100 → 3',
      'password: (hidden) → (hidden)',
      'rate_limits: — → window_seconds 60, max_requests 5',
      'remark: — → new',
    ]);
  });
});
