import { Button, Checkbox, Group } from '@mantine/core';
import { useAdminT } from '../../shared/admin-i18n';
import { NumberField } from '../../shared/number-field';
import { addToCount } from '../lib/setting-form';

/**
 * A count where -1 means unlimited: a number field (empty = unlimited), an "unlimited" checkbox and optional +100 /
 * +1000 ("+1k" in English). A count below -1 or with decimals is refused as typed, never corrected.
 */
export function CountInput({
  label,
  value,
  onChange,
  quickAdd = false,
  error,
}: {
  label: string;
  value: number;
  onChange: (value: number) => void;
  quickAdd?: boolean;
  error?: string;
}) {
  const { ta } = useAdminT();
  const unlimited = value === -1;
  return (
    <Group align="flex-start" gap="xs" wrap="wrap">
      <NumberField
        label={label}
        value={value}
        emptyValue={-1}
        placeholder={ta('common.unlimited')}
        min={-1}
        integer
        onChange={onChange}
        error={error}
        w={170}
      />
      <Checkbox
        mt={30}
        label={ta('common.unlimited')}
        aria-label={ta('user.unlimitedFor', { field: label })}
        checked={unlimited}
        onChange={(e) => onChange(e.currentTarget.checked ? -1 : 0)}
      />
      {quickAdd && (
        <Group gap={4} mt={26}>
          <Button
            variant="default"
            size="compact-sm"
            aria-label={ta('user.addAmount', { field: label, amount: 100 })}
            onClick={() => onChange(addToCount(value, 100))}
          >
            +100
          </Button>
          <Button
            variant="default"
            size="compact-sm"
            aria-label={ta('user.addAmount', { field: label, amount: 1000 })}
            onClick={() => onChange(addToCount(value, 1000))}
          >
            {ta('user.addThousand')}
          </Button>
        </Group>
      )}
    </Group>
  );
}
