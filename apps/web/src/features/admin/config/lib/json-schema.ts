import { MASKED_SECRET } from '@cc/contracts';

/** The subset of JSON Schema (draft 2020-12, as zod's toJSONSchema writes it) the config forms understand. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
}

export type FieldKind =
  | 'object'
  | 'record'
  | 'boolean'
  | 'enum'
  | 'integer'
  | 'number'
  | 'string'
  | 'enumArray'
  | 'stringArray'
  | 'objectArray'
  | 'unknown';

export interface Field {
  /** The schema without its null / mask branches. */
  schema: JsonSchema;
  kind: FieldKind;
  /** null is allowed (clearable). */
  nullable: boolean;
  /** The value is a secret: read masked, the mask written back keeps it. */
  secret: boolean;
}

/** Bounds at or beyond this are zod's "safe integer" limits: not shown. */
const HUGE = Number.MAX_SAFE_INTEGER;

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  return schema.type ? [schema.type] : [];
}

function isNullBranch(schema: JsonSchema): boolean {
  const types = typesOf(schema);
  return (types.length === 1 && types[0] === 'null') || (schema.const === null && types.length <= 1);
}

function isMaskBranch(schema: JsonSchema): boolean {
  return schema.const === MASKED_SECRET || (schema.enum?.length === 1 && schema.enum[0] === MASKED_SECRET);
}

/** Flattens `anyOf` (nullable, masked secrets, nested unions) into one field description. */
export function describeField(input: JsonSchema): Field {
  let nullable = false;
  let secret = false;
  const flatten = (schema: JsonSchema): JsonSchema[] => {
    const union = schema.anyOf ?? schema.oneOf;
    if (union) {
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      return union.flatMap((branch) => flatten({ ...rest, ...branch }));
    }
    return [schema];
  };
  let branches = flatten(input).filter((branch) => {
    if (isNullBranch(branch)) {
      nullable = true;
      return false;
    }
    if (isMaskBranch(branch)) {
      secret = true;
      return false;
    }
    return true;
  });
  branches = branches.map((branch) => {
    const types = typesOf(branch);
    if (types.includes('null')) {
      nullable = true;
      const rest = types.filter((t) => t !== 'null');
      return { ...branch, type: rest.length === 1 ? rest[0] : rest };
    }
    return branch;
  });
  const schema: JsonSchema = branches[0] ?? {};
  return { schema, nullable, secret, kind: kindOf(schema) };
}

function kindOf(schema: JsonSchema): FieldKind {
  if (schema.enum) return 'enum';
  const type = typesOf(schema)[0] ?? '';
  switch (type) {
    case 'boolean':
      return 'boolean';
    case 'integer':
      return 'integer';
    case 'number':
      return 'number';
    case 'string':
      return 'string';
    case 'array': {
      const item = schema.items ? describeField(schema.items) : null;
      if (item?.kind === 'enum') return 'enumArray';
      if (item?.kind === 'string') return 'stringArray';
      if (item?.kind === 'object') return 'objectArray';
      return 'unknown';
    }
    case 'object':
      if (schema.properties) return 'object';
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') return 'record';
      return 'unknown';
    default:
      return 'unknown';
  }
}

/** Shown bounds of a number field (zod's safe-integer limits are left out). */
export function numberBounds(schema: JsonSchema): { min?: number; max?: number } {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum : undefined);
  const max = schema.maximum ?? schema.exclusiveMaximum;
  return {
    min: min !== undefined && Math.abs(min) < HUGE ? min : undefined,
    max: max !== undefined && Math.abs(max) < HUGE ? max : undefined,
  };
}

/** A new value for a field (a new array row, a newly shown key): its default, or an empty value of its kind. */
export function emptyValue(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return structuredClone(schema.default);
  const field = describeField(schema);
  if (field.nullable) return null;
  switch (field.kind) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(field.schema.properties ?? {})) out[key] = emptyValue(child);
      return out;
    }
    case 'record':
      return {};
    case 'boolean':
      return false;
    case 'enum':
      return field.schema.enum?.[0] ?? null;
    case 'integer':
    case 'number':
      return numberBounds(field.schema).min ?? 0;
    case 'string':
      return '';
    case 'enumArray':
    case 'stringArray':
    case 'objectArray':
      return [];
    case 'unknown':
      return null;
  }
}

/** One violation: the dotted path and an i18n key of the admin strings with its values. */
export interface SchemaIssue {
  path: string;
  key: string;
  values?: Record<string, unknown>;
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks a value against its schema: the same bounds the server enforces, with messages for each field. */
export function validateValue(schema: JsonSchema, value: unknown, path = ''): SchemaIssue[] {
  const field = describeField(schema);
  const s = field.schema;
  if (value === null || value === undefined) {
    return field.nullable || value === undefined ? [] : [{ path, key: 'schema.required' }];
  }
  if (field.secret && value === MASKED_SECRET) return [];
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? [] : [{ path, key: 'schema.type' }];
    case 'enum':
      return s.enum?.includes(value) ? [] : [{ path, key: 'schema.enum' }];
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return [{ path, key: 'schema.number' }];
      if (field.kind === 'integer' && !Number.isInteger(value)) return [{ path, key: 'schema.integer' }];
      const { min, max } = numberBounds(s);
      if (min !== undefined && value < min) return [{ path, key: 'schema.min', values: { min } }];
      if (max !== undefined && value > max) return [{ path, key: 'schema.max', values: { max } }];
      return [];
    }
    case 'string': {
      if (typeof value !== 'string') return [{ path, key: 'schema.type' }];
      if (s.minLength !== undefined && value.length < s.minLength)
        return [
          {
            path,
            key: value.length === 0 ? 'schema.required' : 'schema.minLength',
            values: { min: s.minLength },
          },
        ];
      if (s.maxLength !== undefined && value.length > s.maxLength)
        return [{ path, key: 'schema.maxLength', values: { max: s.maxLength } }];
      if (s.format === 'uri' && !isHttpUrl(value)) return [{ path, key: 'schema.url' }];
      if (s.pattern && !new RegExp(s.pattern).test(value)) return [{ path, key: 'schema.pattern' }];
      return [];
    }
    case 'enumArray':
    case 'stringArray':
    case 'objectArray': {
      if (!Array.isArray(value)) return [{ path, key: 'schema.type' }];
      const issues: SchemaIssue[] = [];
      if (s.maxItems !== undefined && value.length > s.maxItems)
        issues.push({ path, key: 'schema.maxItems', values: { max: s.maxItems } });
      value.forEach((item, i) => issues.push(...validateValue(s.items ?? {}, item, join(path, i))));
      return issues;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return [{ path, key: 'schema.type' }];
      const record = value as Record<string, unknown>;
      const issues: SchemaIssue[] = [];
      for (const [key, child] of Object.entries(s.properties ?? {})) {
        if (record[key] === undefined && s.required?.includes(key))
          issues.push({ path: join(path, key), key: 'schema.required' });
        else issues.push(...validateValue(child, record[key], join(path, key)));
      }
      return issues;
    }
    case 'record': {
      if (typeof value !== 'object' || Array.isArray(value)) return [{ path, key: 'schema.type' }];
      const issues: SchemaIssue[] = [];
      const allowed = s.propertyNames?.enum;
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
        if (allowed && !allowed.includes(key)) issues.push({ path: join(path, key), key: 'schema.enum' });
        issues.push(...validateValue(s.additionalProperties as JsonSchema, child, join(path, key)));
      }
      return issues;
    }
    case 'unknown':
      return [];
  }
}

/** Immutable set at a dotted path (numeric parts index arrays). */
export function setAt<T>(root: T, path: readonly (string | number)[], value: unknown): T {
  if (path.length === 0) return value as T;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...(root as unknown[])];
    copy[Number(head)] = setAt(copy[Number(head)], rest, value);
    return copy as T;
  }
  const obj = (root ?? {}) as Record<string, unknown>;
  return { ...obj, [String(head)]: setAt(obj[String(head)], rest, value) } as T;
}

/** True when a config key (dotted) needs a restart, given keys and section prefixes ending with '.'. */
export function needsRestart(path: string, restartKeys: readonly string[]): boolean {
  return restartKeys.some((key) => (key.endsWith('.') ? path.startsWith(key) : path === key));
}
