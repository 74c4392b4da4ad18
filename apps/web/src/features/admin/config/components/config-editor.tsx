import { Alert, Button, Group, List, Loader, Stack, Text } from '@mantine/core';
import type { ConfigRead } from '@cc/contracts';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LoadError } from '../../../../components/load-error';
import { useAdminT } from '../../shared/admin-i18n';
import { issuesOf, serverIssuesToErrors } from '../../shared/form-errors';
import { notifySuccess } from '../../shared/notify';
import { useConfig } from '../api/get-config';
import { useConfigSchema } from '../api/get-config-schema';
import { useUpdateConfig } from '../api/update-config';
import { pathLabel } from '../lib/field-text';
import { setAt, validateValue } from '../lib/json-schema';
import type { JsonSchema } from '../lib/json-schema';
import { SchemaForm } from './schema-form';

/** Downloads JSON as UTF-8 (the predecessor mangled non-ASCII text). */
export function downloadJson(name: string, value: unknown): void {
  const blob = new Blob([JSON.stringify(value, null, 2)], { type: 'application/json;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

/** The sections edited on the provider settings page (and only there). */
export const PROVIDER_SECTIONS = ['openai_web', 'openai_api'] as const;
const NONE: readonly string[] = [];

/**
 * The config form, generated from the server's JSON Schema: edit, check bounds client-side, save the whole
 * config, map 422 details to fields, and list the keys that need a restart. `sections` limits the form to
 * some top-level keys (the provider settings page shows openai_web and openai_api only); `exclude` leaves some out
 * (the config page leaves those to the provider settings page, so each setting has one place).
 */
export function ConfigEditor({
  sections,
  exclude = NONE,
}: {
  sections?: readonly string[];
  exclude?: readonly string[];
}) {
  const { ta, t } = useAdminT();
  const { i18n } = useTranslation();
  const config = useConfig();
  const schemas = useConfigSchema();
  const save = useUpdateConfig();
  // The admin's edited copy; null until the first edit (the form shows the config as loaded).
  const [edited, setEdited] = useState<ConfigRead | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [restart, setRestart] = useState<string[] | null>(null);
  const draft = edited ?? config.data ?? null;

  const schema = useMemo<JsonSchema | null>(() => {
    const full = schemas.data?.config;
    if (!full) return null;
    const properties = Object.fromEntries(
      Object.entries(full.properties ?? {}).filter(
        ([key]) => (!sections || sections.includes(key)) && !exclude.includes(key),
      ),
    );
    return { ...full, properties };
  }, [schemas.data, sections, exclude]);

  const dirty = useMemo(
    () => !!draft && !!config.data && JSON.stringify(draft) !== JSON.stringify(config.data),
    [draft, config.data],
  );

  if (config.isLoading || schemas.isLoading) return <Loader size="sm" />;
  if (config.error || schemas.error)
    return (
      <LoadError
        error={config.error ?? schemas.error}
        onRetry={() => {
          if (config.error) void config.refetch();
          if (schemas.error) void schemas.refetch();
        }}
        retrying={config.isFetching || schemas.isFetching}
      />
    );
  // Loaded: the draft is copied from the config right after this render.
  if (!schema || !draft) return <Loader size="sm" />;

  const translate = (key: string, values?: Record<string, unknown>) => t(`adminx.${key}`, values ?? {});
  const sectionLabel = (key: string) =>
    i18n.exists(`adminx.config.sections.${key}`) ? translate(`config.sections.${key}`) : key;
  const handleChange = (path: (string | number)[], value: unknown) => {
    setEdited((d) => {
      const base = d ?? config.data;
      return base ? setAt(base, path, value) : d;
    });
    const key = path.join('.');
    setErrors((e) => {
      if (!Object.keys(e).some((k) => k.startsWith(key))) return e;
      return Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith(key)));
    });
  };

  const handleSave = async () => {
    const found: Record<string, string> = {};
    for (const issue of validateValue(schemas.data?.config ?? {}, draft))
      found[issue.path] ??= translate(issue.key, issue.values);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    try {
      const saved = await save.mutateAsync(draft);
      setEdited(saved.config);
      setRestart(saved.restart_required);
      notifySuccess(ta('common.saved'));
    } catch (error) {
      setErrors(serverIssuesToErrors(issuesOf(error), t, (k) => i18n.exists(k)));
    }
  };

  const errorCount = Object.keys(errors).length;
  return (
    <Stack gap="md">
      {restart && restart.length > 0 && (
        <Alert
          color="orange"
          title={ta('config.restartTitle')}
          withCloseButton
          onClose={() => setRestart(null)}
        >
          <Text size="sm">{ta('config.restartBody')}</Text>
          <List size="sm" data-testid="restart-required">
            {restart.map((key) => (
              <List.Item key={key}>{pathLabel(t, (k) => i18n.exists(k), key, sectionLabel)}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      {restart && restart.length === 0 && (
        <Alert color="green" withCloseButton onClose={() => setRestart(null)}>
          {ta('config.appliedNow')}
        </Alert>
      )}
      {!sections && (
        <Text size="sm" c="dimmed">
          {ta('config.readOnlyHint')}
        </Text>
      )}
      {errorCount > 0 && (
        <Alert color="red" title={ta('common.checkInput')} role="alert">
          {Object.entries(errors).map(([path, message]) => (
            <Text key={path} size="sm">
              {t('common.labelled', {
                label: pathLabel(t, (k) => i18n.exists(k), path, sectionLabel),
                text: message,
              })}
            </Text>
          ))}
        </Alert>
      )}
      <SchemaForm
        schema={schema}
        value={draft}
        onChange={handleChange}
        errors={errors}
        restartKeys={schemas.data?.restart_required_keys}
        readOnlyKeys={schemas.data?.bootstrap_only_keys}
        sectionLabel={sectionLabel}
      />
      <Group
        justify="flex-end"
        py="xs"
        style={{ position: 'sticky', bottom: 0, zIndex: 2, background: 'var(--mantine-color-body)' }}
      >
        <Button variant="default" disabled={!dirty} onClick={() => setEdited(null)}>
          {ta('config.discard')}
        </Button>
        {!sections && (
          <Button variant="default" onClick={() => downloadJson('config.json', draft)}>
            {ta('config.export')}
          </Button>
        )}
        <Button onClick={() => void handleSave()} loading={save.isPending} disabled={!dirty}>
          {ta('common.save')}
        </Button>
      </Group>
    </Stack>
  );
}
