import { Text, Tooltip } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ChatSource, UserRead } from '@cc/contracts';
import { remainingForModel } from '../../../lib/quota';

/** The chat header's "Asks left": the limit that binds for this model (the smaller of total and per-model). */
export function AsksLeft({
  user,
  source,
  model,
}: {
  user: UserRead | undefined;
  source: ChatSource;
  model: string | null;
}) {
  const { t } = useTranslation();
  const remaining = model ? remainingForModel(user, source, model) : 'unlimited';
  return (
    <Tooltip label={t('chat.remainingTooltip')}>
      <Text size="xs" c="dimmed" data-testid="remaining-asks">
        {t('chat.remaining', { count: remaining === 'unlimited' ? t('common.unlimited') : remaining })}
      </Text>
    </Tooltip>
  );
}
