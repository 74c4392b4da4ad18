import { Collapse, Group, Paper, Progress, Skeleton, Stack, Text, UnstyledButton } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronDownIcon, ChevronRightIcon } from '../../../components/icons';
import { WEB_GPT4_CAP_PER_3H } from '../../../lib/quota';
import { useCommonStatus } from '../api/get-common-status';

function Row({ label, value }: { label: string; value: React.ReactNode }) {
  return (
    <Group justify="space-between" gap="xs" wrap="nowrap">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="xs" fw={600}>
        {value}
      </Text>
    </Group>
  );
}

/** Server status from /api/status/common: active users, queue, and the shared web GPT-4 use (50 per 3 h). */
export function StatusCard() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const { data, isLoading } = useCommonStatus(open);
  const gpt4 = data?.gpt4_count_in_3_hours ?? 0;
  return (
    <Paper withBorder radius="md" p="xs" data-testid="status-card">
      <UnstyledButton onClick={() => setOpen((o) => !o)} aria-expanded={open} w="100%">
        <Group gap={6} justify="space-between">
          <Text size="sm" fw={600}>
            {t('status.title')}
          </Text>
          {open ? <ChevronDownIcon size={14} /> : <ChevronRightIcon size={14} />}
        </Group>
      </UnstyledButton>
      <Collapse expanded={open}>
        {isLoading || !data ? (
          <Stack gap={6} mt="xs">
            <Skeleton h={10} />
            <Skeleton h={10} />
            <Skeleton h={10} />
          </Stack>
        ) : (
          <Stack gap={4} mt="xs">
            <Row label={t('status.active5m')} value={data.active_user_in_5m} />
            <Row label={t('status.active1h')} value={data.active_user_in_1h} />
            <Row label={t('status.active1d')} value={data.active_user_in_1d} />
            <Row label={t('status.busy')} value={data.is_chatbot_busy ? t('common.yes') : t('common.no')} />
            <Row label={t('status.waiting')} value={data.chatbot_waiting_count} />
            <Row label={t('status.gpt4Use')} value={`${gpt4} / ${WEB_GPT4_CAP_PER_3H}`} />
            <Progress
              value={Math.min(100, (gpt4 / WEB_GPT4_CAP_PER_3H) * 100)}
              color={gpt4 >= WEB_GPT4_CAP_PER_3H ? 'red' : 'violet'}
              size="sm"
              aria-label={t('status.gpt4Use')}
            />
            <Text size="xs" c="dimmed">
              {t('status.gpt4Hint', { cap: WEB_GPT4_CAP_PER_3H })}
            </Text>
          </Stack>
        )}
      </Collapse>
    </Paper>
  );
}
