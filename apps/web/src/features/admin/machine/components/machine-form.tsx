import { Alert, Button, Group, Select, SimpleGrid, Stack, Switch, TextInput } from '@mantine/core';
import { MACHINE_STATUSES, SOURCES } from '@cc/contracts';
import type { MachineRead } from '@cc/contracts';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAdminT } from '../../shared/admin-i18n';
import { issuesOf, issuesToErrors, serverIssuesToErrors } from '../../shared/form-errors';
import type { FieldErrors } from '../../shared/form-errors';
import { notifySuccess, notifyWarning } from '../../shared/notify';
import { NumberField } from '../../shared/number-field';
import { useAddMachine } from '../api/add-machine';
import { useUpdateMachine } from '../api/update-machine';
import {
  EMPTY_MACHINE_FORM,
  machinePayload,
  machineToForm,
  missingRequired,
  updatePayload,
  validateMachine,
} from '../lib/machine-form';
import type { MachineFormValues } from '../lib/machine-form';

/** The form keeps an empty number as '' (the payload sends NaN, which the contract refuses). */
const asNumber = (v: number | ''): number => (v === '' ? Number.NaN : v);
const fromNumber = (v: number): number | '' => (Number.isNaN(v) ? '' : v);

/** Add a server (no machine given) or edit one. */
export function MachineForm({ machine, onDone }: { machine?: MachineRead; onDone: () => void }) {
  const { ta, t } = useAdminT();
  const { i18n } = useTranslation();
  const [values, setValues] = useState<MachineFormValues>(() =>
    machine ? machineToForm(machine) : EMPTY_MACHINE_FORM,
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const [showRequired, setShowRequired] = useState(false);
  const add = useAddMachine();
  const update = useUpdateMachine();
  const exists = (key: string) => i18n.exists(key);
  const set = <K extends keyof MachineFormValues>(key: K, value: MachineFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  const handleSubmit = async () => {
    const issues = validateMachine(values);
    setErrors(issuesToErrors(issues, t, exists));
    setShowRequired(missingRequired(values));
    if (issues.length > 0) return;
    try {
      const saved = machine
        ? await update.mutateAsync(updatePayload(machine.id, values))
        : await add.mutateAsync(machinePayload(values));
      // Asked to be online, it was checked first: a failed check leaves it offline, and the admin is told why.
      if (values.status === 'online' && saved.status !== 'online')
        notifyWarning(ta('machine.checkFailed', { error: saved.last_error ?? '' }));
      else notifySuccess(machine ? ta('common.saved') : ta('machine.added'));
      onDone();
    } catch (error) {
      setErrors(serverIssuesToErrors(issuesOf(error), t, exists));
    }
  };

  return (
    <form
      noValidate
      aria-label={machine ? ta('machine.editTitle') : ta('machine.addTitle')}
      onSubmit={(e) => {
        e.preventDefault();
        void handleSubmit();
      }}
    >
      <Stack gap="sm">
        {showRequired && (
          <Alert color="red" role="alert">
            {t('validation.machineFieldsRequired')}
          </Alert>
        )}
        <Select
          label={ta('common.source')}
          data={SOURCES.map((s) => ({ value: s, label: t(`sources.${s}`) }))}
          value={values.source}
          allowDeselect={false}
          onChange={(v) => v && set('source', v)}
        />
        <TextInput
          label={ta('machine.hostname')}
          required
          value={values.hostname}
          onChange={(e) => set('hostname', e.currentTarget.value)}
          error={errors.hostname}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput
            label={ta('machine.ipAddress')}
            required
            value={values.ip_address}
            onChange={(e) => set('ip_address', e.currentTarget.value)}
            error={errors.ip_address}
          />
          <NumberField
            label={ta('machine.port')}
            required
            min={1}
            max={65535}
            integer
            value={asNumber(values.port)}
            onChange={(v) => set('port', fromNumber(v))}
            error={errors.port}
          />
        </SimpleGrid>
        <TextInput
          label={ta('machine.basePath')}
          placeholder="/v1/"
          value={values.base_path}
          onChange={(e) => set('base_path', e.currentTarget.value)}
          error={errors.base_path}
        />
        <Select
          label={ta('machine.status')}
          description={ta('machine.statusCheckHint')}
          required
          data={MACHINE_STATUSES.map((s) => ({ value: s, label: ta(`machine.statuses.${s}`) }))}
          value={values.status || null}
          onChange={(v) => set('status', v ?? '')}
          error={errors.status}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <NumberField
            label={ta('machine.weight')}
            min={1}
            max={100}
            integer
            value={asNumber(values.weight)}
            onChange={(v) => set('weight', fromNumber(v))}
            error={errors.weight}
          />
          <NumberField
            label={ta('machine.maxConcurrency')}
            min={1}
            max={256}
            integer
            value={asNumber(values.max_concurrency)}
            onChange={(v) => set('max_concurrency', fromNumber(v))}
            error={errors.max_concurrency}
          />
        </SimpleGrid>
        <Switch
          label={ta('machine.useTls')}
          checked={values.use_tls}
          onChange={(e) => set('use_tls', e.currentTarget.checked)}
        />
        <Group justify="flex-end" mt="sm">
          <Button variant="default" onClick={onDone}>
            {ta('common.cancel')}
          </Button>
          <Button type="submit" loading={add.isPending || update.isPending}>
            {machine ? ta('common.save') : ta('machine.add')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
