import { Badge, Group, Stack, Text, Tooltip } from '@mantine/core';
import { BUDGET_KINDS, budgetLeft, budgetsToWarn } from '@cc/contracts';
import type { UserSetting } from '@cc/contracts';
import { modelDisplay } from '../../../../components/model-display';
import { formatDateTime } from '../../../../lib/format';
import { formatMoney } from '../../../../lib/money';
import { useAdminT } from '../../shared/admin-i18n';
import { summarizeLimits } from '../lib/limits';

/** A small badge whose tooltip lists what it counts; focusable so the keyboard reaches the list too. */
function DetailBadge({ label, lines, color }: { label: string; lines: string[]; color?: string }) {
  return (
    <Tooltip label={lines.join(' · ')} multiline maw={360} events={{ hover: true, focus: true, touch: true }}>
      <Badge size="xs" variant="default" tt="none" color={color} tabIndex={0} style={{ cursor: 'help' }}>
        {label}
      </Badge>
    </Tooltip>
  );
}

/**
 * One line per source: allowed or not, asks left and max conversations when they are limited, and badges for model
 * restrictions, rate limits, time slots and validity whose tooltips hold the details.
 */
export function LimitsSummary({ setting }: { setting: UserSetting }) {
  const { ta, t, language } = useAdminT();
  return (
    <Stack gap={2}>
      {summarizeLimits(setting).map((limits) => {
        const restricted = limits.perModel.filter((m) => m.remaining !== 'unlimited');
        const source = setting[limits.source];
        // Only the counts that are limited ("Unlimited asks" when neither is): a user without limits once read
        // "Unlimited asks left · max Unlimited conversations", wider than the column.
        const counts = [
          limits.totalAsks !== 'unlimited' && ta('user.asksLeft', { count: limits.totalAsks }),
          limits.maxConversations !== 'unlimited' &&
            ta('user.maxConvShort', { count: limits.maxConversations }),
        ].filter((part): part is string => !!part);
        const countsText = counts.length ? counts.join(' · ') : ta('user.unlimitedAsks');
        return (
          // The badges are shown whole (a second line when the column is too narrow even for them); the counts
          // take the room left after them on the line, cut short with an ellipsis (and whole in their title).
          <Group key={limits.source} gap={4} style={{ rowGap: 2 }} data-testid={`limits-${limits.source}`}>
            <Badge
              size="sm"
              variant={limits.allowed && !limits.expired ? 'light' : 'outline'}
              color={!limits.allowed ? 'gray' : limits.expired ? 'red' : 'blue'}
              style={{ flexShrink: 0 }}
            >
              {t(`sources.${limits.source}`)}
            </Badge>
            {!limits.allowed ? (
              <Text size="xs" c="dimmed">
                {ta('user.notAllowed')}
              </Text>
            ) : (
              <>
                <Text size="xs" truncate title={countsText} style={{ flex: '1 1 0', minWidth: 48, order: 1 }}>
                  {countsText}
                </Text>
                {restricted.length > 0 && (
                  <DetailBadge
                    label={ta('user.modelLimitsBadge', { count: restricted.length })}
                    lines={restricted.map((m) => `${modelDisplay(m.model).label}: ${m.remaining}`)}
                  />
                )}
                {limits.rateLimitCount > 0 && (
                  <DetailBadge
                    label={ta('user.rateLimitsBadge', { count: limits.rateLimitCount })}
                    lines={source.rate_limits.map((r) =>
                      ta('user.rateLimitLine', { max: r.max_requests, seconds: r.window_seconds }),
                    )}
                  />
                )}
                {limits.timeSlotCount > 0 && (
                  <DetailBadge
                    label={ta('user.timeSlotsBadge', { count: limits.timeSlotCount })}
                    lines={source.daily_available_time_slots.map(
                      (s) => `${s.start_time.slice(0, 5)}–${s.end_time.slice(0, 5)} UTC`,
                    )}
                  />
                )}
                {limits.validUntil && (
                  <DetailBadge
                    color={limits.expired ? 'red' : undefined}
                    label={limits.expired ? ta('user.expired') : ta('user.validUntilBadge')}
                    lines={[
                      limits.expired
                        ? ta('user.expiredAt', { time: formatDateTime(limits.validUntil, language) })
                        : ta('user.validUntilShort', { time: formatDateTime(limits.validUntil, language) }),
                    ]}
                  />
                )}
              </>
            )}
          </Group>
        );
      })}
      <BudgetLine setting={setting} />
    </Stack>
  );
}

/** The budgets that are set: the one with the least left, with every budget in its tooltip. */
function BudgetLine({ setting }: { setting: UserSetting }) {
  const { ta, language } = useAdminT();
  const status = setting.budget;
  if (!status) return null;
  const set = BUDGET_KINDS.filter((k) => status[k].limit >= 0);
  if (set.length === 0) return null;
  const money = (v: number) => formatMoney(v, status.currency, language);
  const lines = set.map((k) =>
    ta(`user.budgetLine.${k}`, { left: money(status[k].left), limit: money(status[k].limit) }),
  );
  const spent = budgetsToWarn(status).some((k) => status[k].left <= 0);
  return (
    <Group gap={4} wrap="nowrap" data-testid="limits-budget">
      <DetailBadge
        color={spent ? 'red' : undefined}
        label={ta('user.budgetLeft', { left: money(budgetLeft(status)) })}
        lines={lines}
      />
    </Group>
  );
}
