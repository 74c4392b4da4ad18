import {
  Avatar,
  Badge,
  Button,
  Card,
  Drawer,
  Group,
  Loader,
  Pagination,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { LoadError } from '../../../../components/load-error';
import { useAdminT } from '../../shared/admin-i18n';
import { notifySuccess } from '../../shared/notify';
import { usePlugin } from '../api/get-plugin';
import { usePlugins } from '../api/get-plugins';
import type { AdminPlugin } from '../api/get-plugins';
import { useSetPluginInstalled } from '../api/set-plugin-installed';

const PAGE_SIZE = 12;
type Category = '' | 'most_popular' | 'newly_added';

function PluginDetail({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { ta } = useAdminT();
  const plugin = usePlugin(id);
  const p = plugin.data;
  return (
    <Drawer
      opened={!!id}
      onClose={onClose}
      position="right"
      title={p?.manifest?.name_for_human ?? ta('plugins.detail')}
    >
      {plugin.isLoading && <Loader size="sm" />}
      {p && (
        <Stack gap="sm">
          <Group>
            <Avatar src={p.manifest?.logo_url} alt="" size={56} radius="md" />
            <div>
              <Text fw={700}>{p.manifest?.name_for_human}</Text>
              <Text size="xs" c="dimmed">
                {p.namespace} · {p.domain}
              </Text>
            </div>
          </Group>
          <Text size="sm">{p.manifest?.description_for_human}</Text>
          <Table>
            <Table.Tbody>
              {(
                [
                  ['id', p.id],
                  [ta('plugins.status'), p.status],
                  [ta('plugins.categories'), (p.categories ?? []).map((c) => c.title).join(', ')],
                  [ta('plugins.auth'), p.manifest?.auth?.type],
                  [ta('plugins.contact'), p.manifest?.contact_email],
                  [ta('plugins.legal'), p.manifest?.legal_info_url],
                  [ta('plugins.modelDescription'), p.manifest?.description_for_model],
                ] as const
              ).map(([label, value]) => (
                <Table.Tr key={label}>
                  <Table.Th w={140}>{label}</Table.Th>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{value || '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      )}
    </Drawer>
  );
}

function PluginCard({ plugin, onDetail }: { plugin: AdminPlugin; onDetail: () => void }) {
  const { ta } = useAdminT();
  const toggle = useSetPluginInstalled();
  const installed = !!plugin.user_settings?.is_installed;
  const name = plugin.manifest?.name_for_human ?? plugin.namespace ?? plugin.id;
  return (
    <Card withBorder padding="sm" radius="md" data-testid="plugin-card">
      <Group wrap="nowrap" align="flex-start">
        <Avatar src={plugin.manifest?.logo_url} alt="" size={48} radius="md" />
        <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
          <Text fw={600} truncate>
            {name}
          </Text>
          <Text size="xs" c="dimmed" lineClamp={3}>
            {plugin.manifest?.description_for_human}
          </Text>
        </Stack>
      </Group>
      <Group justify="space-between" mt="sm">
        <Switch
          label={ta('plugins.installed')}
          aria-label={ta('plugins.installedOf', { name })}
          checked={installed}
          disabled={toggle.isPending}
          onChange={(e) => {
            const next = e.currentTarget.checked;
            void toggle
              .mutateAsync({ id: plugin.id, installed: next })
              .then(() => notifySuccess(next ? ta('plugins.enabled') : ta('plugins.disabled')));
          }}
        />
        <Button size="compact-xs" variant="subtle" onClick={onDetail}>
          {ta('common.details')}
        </Button>
      </Group>
    </Card>
  );
}

/** The plugin store of the web account: installed or all / popular / new, search, install switch, details. */
export function PluginList() {
  const { ta } = useAdminT();
  const [filter, setFilter] = useState<'installed' | Category>('installed');
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 300);
  const [page, setPage] = useState(1);
  const [detail, setDetail] = useState<string | null>(null);
  const installedOnly = filter === 'installed';
  const plugins = usePlugins({
    installedOnly,
    offset: (page - 1) * PAGE_SIZE,
    limit: PAGE_SIZE,
    category: installedOnly ? undefined : filter,
    search: installedOnly ? undefined : debounced,
  });
  const items = (plugins.data?.items ?? []).filter(
    (p) =>
      !installedOnly ||
      !debounced ||
      (p.manifest?.name_for_human ?? p.id).toLowerCase().includes(debounced.toLowerCase()),
  );
  const pageCount = installedOnly ? 1 : Math.max(1, Math.ceil((plugins.data?.count ?? 0) / PAGE_SIZE));
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        {ta('plugins.note')}
      </Text>
      <Group gap="sm" wrap="wrap">
        <SegmentedControl
          value={filter}
          onChange={(v) => {
            setFilter(v);
            setPage(1);
          }}
          data={[
            { value: 'installed', label: ta('plugins.filterInstalled') },
            { value: '', label: ta('common.all') },
            { value: 'most_popular', label: ta('plugins.popular') },
            { value: 'newly_added', label: ta('plugins.newest') },
          ]}
        />
        <TextInput
          aria-label={ta('plugins.search')}
          placeholder={ta('plugins.search')}
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            setPage(1);
          }}
          w={240}
        />
        {plugins.data && <Badge variant="light">{ta('plugins.count', { count: plugins.data.count })}</Badge>}
      </Group>
      {plugins.isLoading && <Loader size="sm" />}
      {plugins.error && (
        <LoadError
          error={plugins.error}
          onRetry={() => void plugins.refetch()}
          retrying={plugins.isFetching}
        />
      )}
      {plugins.data && items.length === 0 && <Text c="dimmed">{ta('plugins.empty')}</Text>}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3, xl: 4 }}>
        {items.map((plugin) => (
          <PluginCard key={plugin.id} plugin={plugin} onDetail={() => setDetail(plugin.id)} />
        ))}
      </SimpleGrid>
      {pageCount > 1 && <Pagination total={pageCount} value={page} onChange={setPage} size="sm" />}
      <PluginDetail id={detail} onClose={() => setDetail(null)} />
    </Stack>
  );
}
