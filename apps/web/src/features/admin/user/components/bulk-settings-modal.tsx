import { Button, Group, Modal, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import { DateTimePicker } from '@mantine/dates';
import { SOURCES } from '@cc/contracts';
import type { ChatSource } from '@cc/contracts';
import { useState } from 'react';
import { useAdminT } from '../../shared/admin-i18n';
import { numberProblem } from '../../shared/number-check';
import { NumberField } from '../../shared/number-field';
import { isEmptyPatch } from '../lib/bulk-settings';
import type { BulkSettingsPatch } from '../lib/bulk-settings';
import { isoToPicker, pickerToIso } from './source-fields';

type AsksMode = 'keep' | 'add' | 'set';
type Tri = 'keep' | 'yes' | 'no';

export interface BulkSettingsModalProps {
  opened: boolean;
  count: number;
  onClose: () => void;
  onApply: (patch: BulkSettingsPatch) => void;
}

/** Which settings to change on every selected user: asks (add or set), access to a source, validity. */
export function BulkSettingsModal({ opened, count, onClose, onApply }: BulkSettingsModalProps) {
  const { ta, t } = useAdminT();
  const [source, setSource] = useState<ChatSource>('openai_web');
  const [asksMode, setAsksMode] = useState<AsksMode>('keep');
  const [asks, setAsks] = useState(Number.NaN);
  const [allow, setAllow] = useState<Tri>('keep');
  const [validMode, setValidMode] = useState<'keep' | 'forever' | 'until'>('keep');
  const [validUntil, setValidUntil] = useState<string | null>(null);

  const asksRule = asksMode === 'add' ? { integer: true, min: 1 } : { integer: true, min: -1 };
  const asksBad = asksMode !== 'keep' && numberProblem(asks, asksRule) !== null;
  const validBad = validMode === 'until' && !validUntil;
  const patch: BulkSettingsPatch = {
    source,
    addAsks: asksMode === 'add' ? asks : undefined,
    totalAskCount: asksMode === 'set' ? asks : undefined,
    allowToUse: allow === 'keep' ? undefined : allow === 'yes',
    validUntil: validMode === 'keep' ? undefined : validMode === 'forever' ? null : validUntil,
  };
  const tri = [
    { value: 'keep', label: ta('user.bulk.unchanged') },
    { value: 'yes', label: ta('user.bulk.allow') },
    { value: 'no', label: ta('user.bulk.forbid') },
  ];

  return (
    <Modal opened={opened} onClose={onClose} title={ta('user.bulk.settingsTitle', { count })}>
      <Stack gap="sm">
        <Select
          label={ta('common.source')}
          allowDeselect={false}
          data={SOURCES.map((s) => ({ value: s, label: t(`sources.${s}`) }))}
          value={source}
          onChange={(v) => setSource(v ?? 'openai_web')}
        />
        <Text size="sm" fw={500}>
          {ta('user.totalAskCount')}
        </Text>
        <SegmentedControl
          aria-label={ta('user.totalAskCount')}
          value={asksMode}
          onChange={(v) => setAsksMode(v)}
          data={[
            { value: 'keep', label: ta('user.bulk.unchanged') },
            { value: 'add', label: ta('user.bulk.addAsks') },
            { value: 'set', label: ta('user.bulk.setAsks') },
          ]}
        />
        {asksMode !== 'keep' && (
          <NumberField
            label={ta(asksMode === 'add' ? 'user.bulk.addAsks' : 'user.bulk.setAsks')}
            description={asksMode === 'set' ? ta('user.creditsHint') : undefined}
            value={asks}
            onChange={(v) => setAsks(v)}
            {...asksRule}
          />
        )}
        <Text size="sm" fw={500}>
          {ta('user.allowToUse')}
        </Text>
        <SegmentedControl
          aria-label={ta('user.allowToUse')}
          value={allow}
          onChange={(v) => setAllow(v as Tri)}
          data={tri}
        />
        <Text size="sm" fw={500}>
          {ta('user.validUntil')}
        </Text>
        <SegmentedControl
          aria-label={ta('user.validUntil')}
          value={validMode}
          onChange={(v) => setValidMode(v)}
          data={[
            { value: 'keep', label: ta('user.bulk.unchanged') },
            { value: 'forever', label: ta('user.bulk.noEnd') },
            { value: 'until', label: ta('user.bulk.until') },
          ]}
        />
        {validMode === 'until' && (
          <DateTimePicker
            label={ta('user.bulk.until')}
            withSeconds
            valueFormat="YYYY-MM-DD HH:mm:ss"
            value={isoToPicker(validUntil)}
            onChange={(v) => setValidUntil(pickerToIso(v))}
          />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {ta('common.cancel')}
          </Button>
          <Button disabled={isEmptyPatch(patch) || asksBad || validBad} onClick={() => onApply(patch)}>
            {ta('user.bulk.apply')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
