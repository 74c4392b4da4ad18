import { MASKED_SECRET } from '@cc/contracts';
import { describe, expect, it } from 'vitest';
import { localSchemas } from '../api/get-config-schema';
import { describeField, emptyValue, needsRestart, setAt, validateValue } from './json-schema';
import type { JsonSchema } from './json-schema';

const { config } = localSchemas();
const section = (key: string) => config.properties?.[key] as JsonSchema;
const prop = (sectionKey: string, key: string) => section(sectionKey).properties?.[key] as JsonSchema;

describe('describeField', () => {
  it('maps the contract config to field kinds', () => {
    expect(describeField(section('openai_web')).kind).toBe('object');
    expect(describeField(prop('openai_web', 'enabled')).kind).toBe('boolean');
    expect(describeField(prop('openai_web', 'file_upload_strategy')).kind).toBe('enum');
    expect(describeField(prop('openai_web', 'common_timeout')).kind).toBe('integer');
    expect(describeField(prop('openai_web', 'enabled_models')).kind).toBe('enumArray');
    expect(describeField(prop('openai_web', 'model_code_mapping')).kind).toBe('record');
    expect(describeField(prop('http', 'cors_allow_origins')).kind).toBe('stringArray');
    expect(describeField(prop('log', 'console_log_level')).kind).toBe('enum');
    const rate = (section('user_defaults').properties?.openai_web as JsonSchema).properties?.rate_limits;
    expect(describeField(rate as JsonSchema).kind).toBe('objectArray');
  });

  it('flattens nullable unions and masked secrets', () => {
    const proxy = describeField(prop('openai_web', 'proxy'));
    expect(proxy).toMatchObject({ kind: 'string', nullable: true, secret: false });
    const jwt = describeField(prop('auth', 'jwt_secret'));
    expect(jwt).toMatchObject({ kind: 'string', nullable: true, secret: true });
    expect(describeField({ type: ['integer', 'null'], minimum: 0 })).toMatchObject({
      kind: 'integer',
      nullable: true,
    });
  });
});

describe('validateValue', () => {
  it('accepts the defaults of the contract', () => {
    const defaults = emptyValue(config);
    expect(validateValue(config, defaults)).toEqual([]);
  });

  it('reports the SPEC §5 bounds at their paths', () => {
    const value = emptyValue(config) as Record<string, Record<string, unknown>>;
    value.openai_web!.common_timeout = 0;
    value.http!.port = 70000;
    value.data!.max_file_upload_size = -1;
    value.openai_api!.proxy = 'ftp://x';
    value.openai_web!.max_completion_concurrency = 1.5;
    value.log!.console_log_level = 'TRACE';
    const issues = validateValue(config, value);
    expect(issues).toContainEqual({
      path: 'openai_web.common_timeout',
      key: 'schema.min',
      values: { min: 1 },
    });
    expect(issues).toContainEqual({ path: 'http.port', key: 'schema.max', values: { max: 65535 } });
    expect(issues).toContainEqual({
      path: 'data.max_file_upload_size',
      key: 'schema.min',
      values: { min: 0 },
    });
    expect(issues).toContainEqual({ path: 'openai_api.proxy', key: 'schema.url' });
    expect(issues).toContainEqual({ path: 'openai_web.max_completion_concurrency', key: 'schema.integer' });
    expect(issues).toContainEqual({ path: 'log.console_log_level', key: 'schema.enum' });
  });

  it('accepts the mask for a secret and null for a nullable field, not for others', () => {
    const value = emptyValue(config) as Record<string, Record<string, unknown>>;
    value.auth!.jwt_secret = MASKED_SECRET;
    value.openai_web!.proxy = null;
    expect(validateValue(config, value)).toEqual([]);
    value.auth!.jwt_secret = 'short';
    value.openai_web!.enabled = null;
    const paths = validateValue(config, value).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['auth.jwt_secret', 'openai_web.enabled']));
  });

  it('checks record keys and values and array items', () => {
    const value = emptyValue(config) as Record<string, Record<string, unknown>>;
    value.openai_web!.model_code_mapping = { gpt_4: '', not_a_model: 'x' };
    value.user_defaults = {
      ...(value.user_defaults as object),
      openai_web: {
        ...((value.user_defaults as Record<string, object>).openai_web as object),
        daily_available_time_slots: [{ start_time: '24:00:00', end_time: '10:00:00' }],
      },
    };
    const paths = validateValue(config, value).map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'openai_web.model_code_mapping.gpt_4',
        'openai_web.model_code_mapping.not_a_model',
        'user_defaults.openai_web.daily_available_time_slots.0.start_time',
      ]),
    );
  });
});

describe('helpers', () => {
  it('sets values immutably at nested paths', () => {
    const root = { a: { b: [1, 2, 3] }, c: 1 };
    const next = setAt(root, ['a', 'b', 1], 9);
    expect(next).toEqual({ a: { b: [1, 9, 3] }, c: 1 });
    expect(root.a.b[1]).toBe(2);
    expect(next.c).toBe(1);
  });

  it('matches restart keys and section prefixes', () => {
    const keys = ['http.', 'common.print_sql'];
    expect(needsRestart('http.port', keys)).toBe(true);
    expect(needsRestart('common.print_sql', keys)).toBe(true);
    expect(needsRestart('common.create_initial_admin_user', keys)).toBe(false);
  });
});
