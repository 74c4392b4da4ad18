import {
  ActionIcon,
  Badge,
  Button,
  Fieldset,
  Group,
  MultiSelect,
  PasswordInput,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { MASKED_SECRET } from '@cc/contracts';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useAdminT } from '../../shared/admin-i18n';
import { NumberField } from '../../shared/number-field';
import { fieldText, optionText } from '../lib/field-text';
import { PricesField } from './prices-field';
import { describeField, emptyValue, needsRestart, numberBounds } from '../lib/json-schema';
import type { JsonSchema } from '../lib/json-schema';

type Path = (string | number)[];

export interface SchemaFormProps {
  schema: JsonSchema;
  value: unknown;
  onChange: (path: Path, value: unknown) => void;
  /** Dotted path → translated message. */
  errors: Record<string, string>;
  /** Keys (or section prefixes ending in '.') that apply after a restart. */
  restartKeys?: readonly string[];
  /** Keys (or section prefixes ending in '.') that cannot be changed here: shown disabled. */
  readOnlyKeys?: readonly string[];
  /** Section titles by top-level key; the key itself otherwise. */
  sectionLabel?: (key: string) => string;
  /** Path of `value` inside the whole document (for errors and restart marks). */
  basePath?: Path;
}

interface FieldProps {
  name: string;
  schema: JsonSchema;
  value: unknown;
  path: Path;
  ctx: Omit<SchemaFormProps, 'schema' | 'value' | 'basePath'>;
}

const dotted = (path: Path) => path.join('.');
const PRICES_PATH = 'billing.prices';

function FieldLabel({ name, path, ctx }: { name: string; path: Path; ctx: FieldProps['ctx'] }) {
  const { ta } = useAdminT();
  const restart = needsRestart(dotted(path), ctx.restartKeys ?? []);
  const readOnly = path.length === 1 && needsRestart(`${dotted(path)}.`, ctx.readOnlyKeys ?? []);
  return (
    <Group gap={6} component="span" wrap="nowrap">
      <span>{name}</span>
      {readOnly && (
        <Badge size="xs" variant="outline" color="gray" tt="none">
          {ta('config.readOnlyBadge')}
        </Badge>
      )}
      {restart && (
        <Badge size="xs" variant="outline" color="orange" tt="none">
          {ta('config.restartBadge')}
        </Badge>
      )}
    </Group>
  );
}

function SchemaField({ name: key0, schema, value, path, ctx }: FieldProps): ReactNode {
  const { ta } = useAdminT();
  const { t, i18n } = useTranslation();
  const exists = (k: string) => i18n.exists(k);
  const field = describeField(schema);
  const s = field.schema;
  const key = dotted(path);
  const error = ctx.errors[key];
  // A section is named by the page; every field below by its path (label and help in the reader's language).
  const text = path.length <= 1 ? { label: key0, help: null } : fieldText(t, exists, path);
  const name = text.label;
  const label = <FieldLabel name={name} path={path} ctx={ctx} />;
  const description = text.help ?? s.description ?? schema.description;
  const options = (values: unknown[] | undefined) =>
    (values ?? []).map((v) => ({ value: String(v), label: optionText(t, exists, String(v)) }));
  const set = (next: unknown) => ctx.onChange(path, next);

  // The price list reads best as a table of models with their two prices.
  if (key === PRICES_PATH)
    return (
      <PricesField
        legend={label}
        description={description ?? null}
        value={value}
        onChange={set}
        errors={ctx.errors}
      />
    );
  switch (field.kind) {
    case 'object':
      return (
        <Fieldset legend={label} data-path={key} disabled={needsRestart(`${key}.`, ctx.readOnlyKeys ?? [])}>
          <Stack gap="sm">
            {Object.entries(s.properties ?? {}).map(([child, childSchema]) => (
              <SchemaField
                key={child}
                name={child}
                schema={childSchema}
                value={(value as Record<string, unknown> | null)?.[child]}
                path={[...path, child]}
                ctx={ctx}
              />
            ))}
          </Stack>
        </Fieldset>
      );
    case 'boolean':
      return (
        <Switch
          label={label}
          description={description}
          checked={value === true}
          onChange={(e) => set(e.currentTarget.checked)}
          error={error}
        />
      );
    case 'enum':
      return (
        <Select
          label={label}
          description={description}
          data={options(s.enum)}
          value={typeof value === 'string' || typeof value === 'number' ? String(value) : null}
          clearable={field.nullable}
          allowDeselect={field.nullable}
          onChange={(v) => set(v)}
          error={error}
          maw={360}
        />
      );
    case 'integer':
    case 'number': {
      const { min, max } = numberBounds(s);
      return (
        <NumberField
          label={label}
          description={[description, boundsText(ta, min, max)].filter(Boolean).join(' · ') || undefined}
          value={typeof value === 'number' ? value : Number.NaN}
          min={min}
          max={max}
          integer={field.kind === 'integer'}
          optional={field.nullable}
          placeholder={field.nullable ? ta('config.nullPlaceholder') : undefined}
          onChange={(v, text) => set(field.nullable && text.trim() === '' ? null : v)}
          error={error}
          maw={260}
        />
      );
    }
    case 'string':
      if (field.secret) {
        return (
          <PasswordInput
            label={label}
            description={description}
            autoComplete="new-password"
            placeholder={value === MASKED_SECRET ? ta('config.secretSet') : ta('config.secretNotSet')}
            value={typeof value === 'string' && value !== MASKED_SECRET ? value : ''}
            onChange={(e) => {
              const text = e.currentTarget.value;
              set(text === '' ? MASKED_SECRET : text);
            }}
            error={error}
            maw={480}
          />
        );
      }
      return (
        <TextInput
          label={label}
          description={description}
          value={typeof value === 'string' ? value : ''}
          placeholder={field.nullable ? ta('config.nullPlaceholder') : undefined}
          onChange={(e) => {
            const text = e.currentTarget.value;
            set(text === '' && field.nullable ? null : text);
          }}
          error={error}
          maw={480}
        />
      );
    case 'enumArray': {
      const item = describeField(s.items ?? {});
      return (
        <MultiSelect
          label={label}
          description={description}
          data={options(item.schema.enum)}
          value={Array.isArray(value) ? value.map(String) : []}
          onChange={set}
          error={error}
          clearable
          maw={640}
        />
      );
    }
    case 'stringArray':
      return (
        <TagsInput
          label={label}
          description={[description, ta('config.tagsHint')].filter(Boolean).join(' · ')}
          value={Array.isArray(value) ? value.map(String) : []}
          onChange={set}
          error={error ?? firstChildError(ctx.errors, key)}
          clearable
          maw={640}
        />
      );
    case 'record':
      return <RecordField name={name} schema={schema} value={value} path={path} ctx={ctx} />;
    case 'objectArray':
      return <ObjectArrayField name={name} schema={schema} value={value} path={path} ctx={ctx} />;
    case 'unknown':
      return (
        <Text size="sm" c="dimmed">
          {name}: {JSON.stringify(value)}
        </Text>
      );
  }
}

function boundsText(ta: ReturnType<typeof useAdminT>['ta'], min?: number, max?: number): string | undefined {
  if (min !== undefined && max !== undefined) return ta('config.between', { min, max });
  if (min !== undefined) return ta('config.atLeast', { min });
  if (max !== undefined) return ta('config.atMost', { max });
  return undefined;
}

function firstChildError(errors: Record<string, string>, key: string): string | undefined {
  const hit = Object.entries(errors).find(([k]) => k.startsWith(`${key}.`));
  return hit?.[1];
}

/** A map: one row per key (a select when the keys are an enum) with its value; rows can be added and removed. */
function RecordField({ name, schema, value, path, ctx }: FieldProps) {
  const { ta } = useAdminT();
  const { t, i18n } = useTranslation();
  const s = describeField(schema).schema;
  const record = (value ?? {}) as Record<string, unknown>;
  const valueSchema = typeof s.additionalProperties === 'object' ? s.additionalProperties : {};
  const keyOptions = s.propertyNames?.enum?.map(String);
  const entries = Object.entries(record);
  const unused = keyOptions?.filter((k) => !(k in record)) ?? [];
  const rename = (from: string, to: string) => {
    const next: Record<string, unknown> = {};
    for (const [k, v] of entries) next[k === from ? to : k] = v;
    ctx.onChange(path, next);
  };
  const remove = (key: string) => {
    const { [key]: _removed, ...rest } = record;
    ctx.onChange(path, rest);
  };
  return (
    <Fieldset legend={<FieldLabel name={name} path={path} ctx={ctx} />} data-path={dotted(path)}>
      <Stack gap="xs">
        {entries.map(([key, child], index) => (
          <Group key={index} gap="xs" align="flex-start" wrap="nowrap">
            {keyOptions ? (
              <Select
                aria-label={ta('config.recordKey', { index: index + 1 })}
                data={[key, ...unused].map((k) => ({
                  value: k,
                  label: optionText(t, (x) => i18n.exists(x), k),
                }))}
                value={key}
                allowDeselect={false}
                onChange={(v) => v && rename(key, v)}
                w={240}
              />
            ) : (
              <TextInput
                aria-label={ta('config.recordKey', { index: index + 1 })}
                value={key}
                onChange={(e) => rename(key, e.currentTarget.value)}
                w={240}
              />
            )}
            <div style={{ flex: 1 }}>
              <SchemaField name={key} schema={valueSchema} value={child} path={[...path, key]} ctx={ctx} />
            </div>
            <ActionIcon
              variant="subtle"
              color="red"
              mt={4}
              aria-label={ta('common.removeRow', { index: index + 1 })}
              onClick={() => remove(key)}
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        <Button
          size="compact-sm"
          variant="light"
          w="fit-content"
          disabled={!!keyOptions && unused.length === 0}
          onClick={() => {
            const key = keyOptions ? (unused[0] ?? '') : `key_${entries.length + 1}`;
            ctx.onChange(path, { ...record, [key]: emptyValue(valueSchema) });
          }}
        >
          {ta('common.addRow')}
        </Button>
      </Stack>
    </Fieldset>
  );
}

/** A list of objects: each row shows the item's fields; rows can be added (with defaults) and removed. */
function ObjectArrayField({ name, schema, value, path, ctx }: FieldProps) {
  const { ta } = useAdminT();
  const s = describeField(schema).schema;
  const itemSchema = s.items ?? {};
  const list = Array.isArray(value) ? (value as unknown[]) : [];
  return (
    <Fieldset legend={<FieldLabel name={name} path={path} ctx={ctx} />} data-path={dotted(path)}>
      <Stack gap="xs">
        {list.map((item, index) => (
          <Group key={index} gap="xs" align="flex-start" wrap="nowrap">
            <div style={{ flex: 1 }}>
              <SchemaField
                name={`${name} #${index + 1}`}
                schema={itemSchema}
                value={item}
                path={[...path, index]}
                ctx={ctx}
              />
            </div>
            <ActionIcon
              variant="subtle"
              color="red"
              mt="lg"
              aria-label={ta('common.removeRow', { index: index + 1 })}
              onClick={() =>
                ctx.onChange(
                  path,
                  list.filter((_, i) => i !== index),
                )
              }
            >
              ×
            </ActionIcon>
          </Group>
        ))}
        <Button
          size="compact-sm"
          variant="light"
          w="fit-content"
          disabled={s.maxItems !== undefined && list.length >= s.maxItems}
          onClick={() => ctx.onChange(path, [...list, emptyValue(itemSchema)])}
        >
          {ta('common.addRow')}
        </Button>
      </Stack>
    </Fieldset>
  );
}

/** Renders any object schema as a form: one fieldset per top-level property. */
export function SchemaForm({ schema, value, basePath = [], sectionLabel, ...ctx }: SchemaFormProps) {
  const root = describeField(schema).schema;
  return (
    <Stack gap="md">
      {Object.entries(root.properties ?? {}).map(([key, child]) => (
        <SchemaField
          key={key}
          name={sectionLabel ? sectionLabel(key) : key}
          schema={child}
          value={(value as Record<string, unknown> | null)?.[key]}
          path={[...basePath, key]}
          ctx={{ ...ctx, sectionLabel }}
        />
      ))}
    </Stack>
  );
}
