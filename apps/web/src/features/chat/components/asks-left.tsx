import { Group, Text, Tooltip } from '@mantine/core';
import { budgetLeft } from '@cc/contracts';
import { useTranslation } from 'react-i18next';
import type { ChatSource, UserRead } from '@cc/contracts';
import { formatMoney } from '../../../lib/money';
import { remainingForModel } from '../../../lib/quota';

/**
 * The chat header's "Asks left": the limit that binds for this model (the smallest of total, per-model and what
 * the budgets cover), and the money left when a budget is set.
 */
export function AsksLeft({
  user,
  source,
  model,
}: {
  user: UserRead | undefined;
  source: ChatSource;
  model: string | null;
}) {
  const { t, i18n } = useTranslation();
  const remaining = model ? remainingForModel(user, source, model) : 'unlimited';
  const status = user?.setting.budget;
  const left = budgetLeft(status);
  return (
    <Group gap={8} wrap="nowrap">
      <Tooltip label={t('chat.remainingTooltip')}>
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }} data-testid="remaining-asks">
          {t('chat.remaining', { count: remaining === 'unlimited' ? t('common.unlimited') : remaining })}
        </Text>
      </Tooltip>
      {status && left !== -1 && (
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }} data-testid="budget-left">
          {t('chat.budget.moneyLeft', { amount: formatMoney(left, status.currency, i18n.language) })}
        </Text>
      )}
    </Group>
  );
}
