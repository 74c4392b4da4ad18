import { Group, Loader, Stack, Table, Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { useTranslation } from 'react-i18next';
import { SOURCES } from '@cc/contracts';
import type { ChatSource, UserRead } from '@cc/contracts';
import { ModelAvatar, modelDisplay } from '../../../components/model-display';
import { formatDateTime } from '../../../lib/format';
import { i18n } from '../../../i18n';
import { normalizeCount, remainingForModel } from '../../../lib/quota';
import { useUser } from '../../../lib/session';
import { MyUsageSection } from './my-usage';

function CountText({ value }: { value: number | null | undefined }) {
  const { t } = useTranslation();
  const n = normalizeCount(value);
  return <>{n === 'unlimited' ? t('common.unlimited') : n}</>;
}

/** Asks left per model, one line each (a long model name wraps; the count is never cut off). */
function RemainingPerModel({ user, source }: { user: UserRead; source: ChatSource }) {
  const { t } = useTranslation();
  const setting = user.setting[source];
  if (!setting.allow_to_use)
    return (
      <Text size="sm" c="dimmed">
        {t('profile.notAllowed')}
      </Text>
    );
  return (
    <Stack
      component="ul"
      gap={4}
      m={0}
      p={0}
      style={{ listStyle: 'none' }}
      data-testid={`asks-left-${source}`}
    >
      {setting.available_models.map((model) => {
        const remaining = remainingForModel(user, source, model);
        return (
          <Group component="li" key={model} gap={6} wrap="nowrap" align="flex-start">
            <ModelAvatar model={model} size={18} decorative />
            <Text size="sm">
              {modelDisplay(model).label}:{' '}
              <Text span fw={600} style={{ whiteSpace: 'nowrap' }}>
                {remaining === 'unlimited' ? t('common.unlimited') : remaining}
              </Text>
            </Text>
          </Group>
        );
      })}
    </Stack>
  );
}

/** SPEC §2: a table of the user's fields; last active shows "never active" when absent. */
export function ProfileContent() {
  const { t, i18n: instance } = useTranslation();
  const { data: user, isLoading } = useUser();
  if (isLoading || !user) return <Loader size="sm" />;
  const rows: [string, React.ReactNode][] = [
    ['#', user.id],
    [t('profile.username'), user.username],
    [t('profile.nickname'), user.nickname],
    [t('profile.email'), user.email],
    [t('profile.role'), user.is_superuser ? t('profile.superuser') : t('profile.user')],
    [t('profile.chatStatus'), t(`chatStatus.${user.setting.openai_web_chat_status}`)],
    [
      t('profile.lastActiveTime'),
      user.last_active_time
        ? formatDateTime(user.last_active_time, instance.language)
        : t('profile.neverActive'),
    ],
    [t('profile.createTime'), formatDateTime(user.create_time, instance.language)],
    ...SOURCES.flatMap((source): [string, React.ReactNode][] => [
      [
        `${t(`sources.${source}`)} · ${t('profile.maxConversations')}`,
        <CountText key="c" value={user.setting[source].max_conv_count} />,
      ],
      [
        `${t(`sources.${source}`)} · ${t('profile.totalAsks')}`,
        <CountText key="t" value={user.setting[source].total_ask_count} />,
      ],
      [
        `${t(`sources.${source}`)} · ${t('profile.remainingAsks')}`,
        <RemainingPerModel key="r" user={user} source={source} />,
      ],
    ]),
  ];
  return (
    <>
      <Table withRowBorders striped verticalSpacing="xs" data-testid="profile-table">
        <Table.Tbody>
          {rows.map(([label, value]) => (
            <Table.Tr key={label}>
              <Table.Th w="min(200px, 40%)">{label}</Table.Th>
              {/* (A long email or name breaks rather than widening the table past the dialog.) */}
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <MyUsageSection />
    </>
  );
}

export function openProfileModal(): void {
  modals.open({ title: i18n.t('profile.title'), size: 600, children: <ProfileContent /> });
}
