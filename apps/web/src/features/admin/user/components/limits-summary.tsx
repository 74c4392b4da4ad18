import { Badge, Group, Stack, Text, Tooltip } from '@mantine/core';
import type { UserSetting } from '@cc/contracts';
import { modelDisplay } from '../../../../components/model-display';
import { formatDateTime } from '../../../../lib/format';
import { useAdminT } from '../../shared/admin-i18n';
import { formatRemaining, summarizeLimits } from '../lib/limits';

/** Per source: allowed or not, total asks left, max conversations, validity, and the per-model counts. */
export function LimitsSummary({ setting }: { setting: UserSetting }) {
  const { ta, t, language } = useAdminT();
  const unlimited = ta('common.unlimited');
  return (
    <Stack gap={4}>
      {summarizeLimits(setting).map((limits) => (
        <Group key={limits.source} gap={4} wrap="wrap" data-testid={`limits-${limits.source}`}>
          <Badge
            size="sm"
            variant={limits.allowed && !limits.expired ? 'light' : 'outline'}
            color={!limits.allowed ? 'gray' : limits.expired ? 'red' : 'blue'}
          >
            {t(`sources.${limits.source}`)}
          </Badge>
          {!limits.allowed ? (
            <Text size="xs" c="dimmed">
              {ta('user.notAllowed')}
            </Text>
          ) : (
            <>
              <Text size="xs">
                {ta('user.asksLeft', { count: formatRemaining(limits.totalAsks, unlimited) })}
              </Text>
              <Text size="xs" c="dimmed">
                · {ta('user.maxConvShort', { count: formatRemaining(limits.maxConversations, unlimited) })}
              </Text>
              {limits.perModel
                .filter((m) => m.remaining !== 'unlimited')
                .map((m) => (
                  <Tooltip key={m.model} label={modelDisplay(m.model).label}>
                    <Badge size="xs" variant="default" tt="none">
                      {modelDisplay(m.model).label}: {m.remaining}
                    </Badge>
                  </Tooltip>
                ))}
              {limits.validUntil && (
                <Text size="xs" c={limits.expired ? 'red' : 'dimmed'}>
                  ·{' '}
                  {limits.expired
                    ? ta('user.expiredAt', { time: formatDateTime(limits.validUntil, language) })
                    : ta('user.validUntilShort', { time: formatDateTime(limits.validUntil, language) })}
                </Text>
              )}
            </>
          )}
        </Group>
      ))}
    </Stack>
  );
}
