import '@mantine/dates/styles.css';
import { ActionIcon, Button, Checkbox, Fieldset, Group, Stack, Switch, Text } from '@mantine/core';
import { DateTimePicker, TimeInput } from '@mantine/dates';
import { modelDisplay } from '../../../../components/model-display';
import type { DailyTimeSlot, TimeWindowRateLimit } from '@cc/contracts';
import dayjs from 'dayjs';
import { useAdminT } from '../../shared/admin-i18n';
import type { FieldErrors } from '../../shared/form-errors';
import { NumberField } from '../../shared/number-field';
import { CountInput } from './count-input';

/** The fields both sources share. */
export interface CommonSourceForm {
  allow_to_use: boolean;
  valid_until: string | null;
  max_conv_count: number;
  total_ask_count: number;
  rate_limits: TimeWindowRateLimit[];
  daily_available_time_slots: DailyTimeSlot[];
  available_models: string[];
  per_model_ask_count: Record<string, number>;
}

const PICKER_FORMAT = 'YYYY-MM-DD HH:mm:ss';
const MAX_RATE_LIMITS = 10;
const MAX_TIME_SLOTS = 24;

/** ISO (UTC) ↔ the picker's local "YYYY-MM-DD HH:mm:ss". */
export function isoToPicker(iso: string | null): string | null {
  return iso ? dayjs(iso).format(PICKER_FORMAT) : null;
}
export function pickerToIso(value: string | null): string | null {
  if (!value) return null;
  const date = dayjs(value);
  return date.isValid() ? date.toISOString() : null;
}

/** Extends the validity from its current end, or from now when empty or already past. */
export function extendValidity(iso: string | null, amount: number, unit: 'day' | 'week' | 'month' | 'year') {
  const base = iso && dayjs(iso).isAfter(dayjs()) ? dayjs(iso) : dayjs();
  return base.add(amount, unit).toISOString();
}

export function SourceFields<F extends CommonSourceForm>({
  value,
  models,
  onChange,
  errors,
  prefix,
}: {
  value: F;
  /** Every model of the source, in display order. */
  models: readonly string[];
  onChange: (patch: Partial<CommonSourceForm>) => void;
  errors: FieldErrors;
  /** Error path prefix: `openai_web` or `openai_api`. */
  prefix: string;
}) {
  const { ta } = useAdminT();
  const err = (path: string) => errors[`${prefix}.${path}`];
  const setRate = (index: number, patch: Partial<TimeWindowRateLimit>) =>
    onChange({ rate_limits: value.rate_limits.map((r, i) => (i === index ? { ...r, ...patch } : r)) });
  const setSlot = (index: number, patch: Partial<DailyTimeSlot>) =>
    onChange({
      daily_available_time_slots: value.daily_available_time_slots.map((s, i) =>
        i === index ? { ...s, ...patch } : s,
      ),
    });

  return (
    <Stack gap="md">
      <Switch
        label={ta('user.allowToUse')}
        checked={value.allow_to_use}
        onChange={(e) => onChange({ allow_to_use: e.currentTarget.checked })}
      />
      <Stack gap={4}>
        <DateTimePicker
          label={ta('user.validUntil')}
          placeholder={ta('user.validForever')}
          clearable
          withSeconds
          valueFormat={PICKER_FORMAT}
          value={isoToPicker(value.valid_until)}
          onChange={(v) => onChange({ valid_until: pickerToIso(v) })}
          error={err('valid_until')}
          maw={320}
        />
        <Group gap={4}>
          {(['day', 'week', 'month', 'year'] as const).map((unit) => (
            <Button
              key={unit}
              size="compact-xs"
              variant="default"
              // The name starts with what the button shows (so "+1w" is what a voice command says), then says it.
              aria-label={ta('user.extendButton', {
                short: ta(`user.extendShort.${unit}`),
                action: ta(`user.extend.${unit}`),
              })}
              title={ta(`user.extend.${unit}`)}
              onClick={() => onChange({ valid_until: extendValidity(value.valid_until, 1, unit) })}
            >
              {ta(`user.extendShort.${unit}`)}
            </Button>
          ))}
        </Group>
      </Stack>
      <CountInput
        label={ta('user.maxConvCount')}
        value={value.max_conv_count}
        onChange={(v) => onChange({ max_conv_count: v })}
        error={err('max_conv_count')}
      />
      <CountInput
        label={ta('user.totalAskCount')}
        value={value.total_ask_count}
        onChange={(v) => onChange({ total_ask_count: v })}
        error={err('total_ask_count')}
        quickAdd
      />
      <Checkbox.Group
        label={ta('user.availableModels')}
        value={value.available_models}
        onChange={(v) => onChange({ available_models: v })}
        error={err('available_models')}
      >
        <Group gap="md" mt={4}>
          {models.map((model) => (
            <Checkbox key={model} value={model} label={modelDisplay(model).label} />
          ))}
        </Group>
      </Checkbox.Group>
      <Fieldset legend={ta('user.perModelAskCount')}>
        <Stack gap="xs">
          {models.map((model) => (
            <CountInput
              key={model}
              label={modelDisplay(model).label}
              value={value.per_model_ask_count[model] ?? -1}
              onChange={(v) =>
                onChange({ per_model_ask_count: { ...value.per_model_ask_count, [model]: v } })
              }
              error={err(`per_model_ask_count.${model}`)}
              quickAdd
            />
          ))}
        </Stack>
      </Fieldset>
      <Fieldset legend={ta('user.rateLimits')}>
        <Text size="xs" c="dimmed" mb="xs">
          {ta('user.rateLimitsHint')}
        </Text>
        <Stack gap="xs">
          {value.rate_limits.map((rate, index) => (
            <Group key={index} align="flex-start" gap="xs" data-testid={`${prefix}-rate-limit`}>
              <NumberField
                label={ta('user.windowSeconds')}
                min={1}
                integer
                value={rate.window_seconds}
                onChange={(v) => setRate(index, { window_seconds: v })}
                error={err(`rate_limits.${index}.window_seconds`)}
                w={150}
              />
              <NumberField
                label={ta('user.maxRequests')}
                min={0}
                integer
                value={rate.max_requests}
                onChange={(v) => setRate(index, { max_requests: v })}
                error={err(`rate_limits.${index}.max_requests`)}
                w={150}
              />
              <ActionIcon
                mt={28}
                variant="subtle"
                color="red"
                aria-label={ta('common.removeRow', { index: index + 1 })}
                onClick={() => onChange({ rate_limits: value.rate_limits.filter((_, i) => i !== index) })}
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          {value.rate_limits.length === 0 && (
            <Text size="sm" c="dimmed">
              {ta('user.noRateLimits')}
            </Text>
          )}
          <Button
            size="compact-sm"
            variant="light"
            w="fit-content"
            disabled={value.rate_limits.length >= MAX_RATE_LIMITS}
            onClick={() =>
              onChange({ rate_limits: [...value.rate_limits, { window_seconds: 3600, max_requests: 100 }] })
            }
          >
            {ta('user.addRateLimit')}
          </Button>
        </Stack>
      </Fieldset>
      <Fieldset legend={ta('user.timeSlots')}>
        <Text size="xs" c="dimmed" mb="xs">
          {ta('user.timeSlotsHint')}
        </Text>
        <Stack gap="xs">
          {value.daily_available_time_slots.map((slot, index) => (
            <Group key={index} align="flex-start" gap="xs" data-testid={`${prefix}-time-slot`}>
              <TimeInput
                label={ta('common.startTime')}
                withSeconds
                value={slot.start_time}
                onChange={(e) => setSlot(index, { start_time: e.currentTarget.value })}
                error={err(`daily_available_time_slots.${index}.start_time`)}
                w={150}
              />
              <TimeInput
                label={ta('common.endTime')}
                withSeconds
                value={slot.end_time}
                onChange={(e) => setSlot(index, { end_time: e.currentTarget.value })}
                error={err(`daily_available_time_slots.${index}.end_time`)}
                w={150}
              />
              <ActionIcon
                mt={28}
                variant="subtle"
                color="red"
                aria-label={ta('common.removeRow', { index: index + 1 })}
                onClick={() =>
                  onChange({
                    daily_available_time_slots: value.daily_available_time_slots.filter(
                      (_, i) => i !== index,
                    ),
                  })
                }
              >
                ×
              </ActionIcon>
            </Group>
          ))}
          {value.daily_available_time_slots.length === 0 && (
            <Text size="sm" c="dimmed">
              {ta('user.noTimeSlots')}
            </Text>
          )}
          <Button
            size="compact-sm"
            variant="light"
            w="fit-content"
            disabled={value.daily_available_time_slots.length >= MAX_TIME_SLOTS}
            onClick={() =>
              onChange({
                daily_available_time_slots: [
                  ...value.daily_available_time_slots,
                  { start_time: '00:00:00', end_time: '23:59:59' },
                ],
              })
            }
          >
            {ta('user.addTimeSlot')}
          </Button>
        </Stack>
      </Fieldset>
    </Stack>
  );
}
