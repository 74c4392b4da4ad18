import { Badge, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { BUDGET_KINDS } from '@cc/contracts';
import type { MyUsage } from '@cc/contracts';
import { LoadError } from '../../../components/load-error';
import { modelDisplay } from '../../../components/model-display';
import { formatMoney } from '../../../lib/money';
import { useMyUsage } from '../api/get-my-usage';

const count = (n: number, language: string) => new Intl.NumberFormat(language).format(n);

/**
 * The month's numbers and cost, each spend budget (budget, spent, left), and per source the asks left in total
 * and per model (the limit that binds).
 */
export function MyUsageView({ usage }: { usage: MyUsage }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language;
  const left = (n: number) => (n < 0 ? t('common.unlimited') : count(n, lang));
  const month = usage.period_start.slice(0, 7);
  const money = (v: number) => formatMoney(v, usage.budget.currency, lang);
  return (
    <Table withRowBorders verticalSpacing="xs" data-testid="my-usage">
      <Table.Tbody>
        <Table.Tr>
          <Table.Th w={200}>{t('profile.usagePeriod')}</Table.Th>
          <Table.Td>{t('profile.usageMonth', { month })}</Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th>{t('profile.usageAsks')}</Table.Th>
          <Table.Td data-testid="my-usage-asks">{count(usage.asks, lang)}</Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th>{t('profile.usageTokens')}</Table.Th>
          <Table.Td data-testid="my-usage-tokens">
            {t('profile.usageTokensInOut', {
              input: count(usage.input_tokens, lang),
              output: count(usage.output_tokens, lang),
            })}
          </Table.Td>
        </Table.Tr>
        <Table.Tr>
          <Table.Th>{t('profile.usageCost')}</Table.Th>
          <Table.Td data-testid="my-usage-cost">{money(usage.cost)}</Table.Td>
        </Table.Tr>
        {BUDGET_KINDS.map((kind) => {
          const b = usage.budget[kind];
          return (
            <Table.Tr key={kind} data-testid={`my-budget-${kind}`}>
              <Table.Th>{t(`profile.budget.${kind}`)}</Table.Th>
              <Table.Td>
                {b.limit < 0
                  ? t('profile.budget.none', { spent: money(b.spent) })
                  : t('profile.budget.line', {
                      limit: money(b.limit),
                      spent: money(b.spent),
                      left: money(b.left),
                    })}
              </Table.Td>
            </Table.Tr>
          );
        })}
        {usage.sources.map((s) => (
          <Table.Tr key={s.source}>
            <Table.Th>{t(`sources.${s.source}`)}</Table.Th>
            <Table.Td>
              <Stack gap={4}>
                <Text size="sm">
                  {t('profile.usageSourceLine', {
                    asks: count(s.asks, lang),
                    total: left(s.total_remaining),
                  })}
                </Text>
                <Group gap={6}>
                  {s.models.map((m) => (
                    <Badge key={m.model} variant="default" tt="none">
                      {t('common.labelled', { label: modelDisplay(m.model).label, text: left(m.remaining) })}
                    </Badge>
                  ))}
                </Group>
              </Stack>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Profile → My usage: loads /api/user/me/usage; an error shows a retry. */
export function MyUsageSection() {
  const { t } = useTranslation();
  const usage = useMyUsage();
  return (
    <Stack gap="xs" mt="md">
      <Title order={4}>{t('profile.myUsage')}</Title>
      {usage.isLoading ? (
        <Loader size="sm" />
      ) : usage.error || !usage.data ? (
        <LoadError error={usage.error} onRetry={() => void usage.refetch()} retrying={usage.isFetching} />
      ) : (
        <MyUsageView usage={usage.data} />
      )}
    </Stack>
  );
}
