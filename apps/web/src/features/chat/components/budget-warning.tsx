import { Alert, Text } from '@mantine/core';
import { budgetsToWarn } from '@cc/contracts';
import type { BudgetKind, UserRead } from '@cc/contracts';
import { useTranslation } from 'react-i18next';
import { formatMoney } from '../../../lib/money';

/**
 * A warning above the input once an ask left the user at or above the warning share of a budget (80% by
 * default): which budget, how much is left and, for a daily or monthly one, when it starts again. It blocks
 * nothing; the server refuses an ask the budget cannot pay for with its own error.
 */
export function BudgetWarning({ user }: { user: UserRead | undefined }) {
  const { t, i18n } = useTranslation();
  const status = user?.setting.budget;
  const kinds = budgetsToWarn(status);
  if (!status || kinds.length === 0) return null;
  // The budget with the least left binds; say that one.
  const kind = kinds.reduce<BudgetKind>((a, b) => (status[b].left < status[a].left ? b : a), kinds[0]!);
  const b = status[kind];
  const money = (v: number) => formatMoney(v, status.currency, i18n.language);
  const spent = b.left <= 0;
  return (
    <Alert
      color={spent ? 'red' : 'yellow'}
      variant="light"
      role="status"
      mb="xs"
      data-testid="budget-warning"
      title={t(spent ? 'chat.budget.spentTitle' : 'chat.budget.warnTitle', {
        budget: t(`chat.budget.kind.${kind}`),
      })}
    >
      <Text size="sm">
        {t('chat.budget.left', {
          percent: b.limit > 0 ? Math.min(100, Math.round((b.spent / b.limit) * 100)) : 100,
          spent: money(b.spent),
          limit: money(b.limit),
          left: money(b.left),
        })}
        {b.resets_at &&
          ` ${t('chat.budget.resets', { time: new Date(b.resets_at).toLocaleString(i18n.language) })}`}
      </Text>
    </Alert>
  );
}
