import { Tabs } from '@mantine/core';
import { useState } from 'react';
import { ConfigEditor, PROVIDER_SECTIONS } from '../config/components/config-editor';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { PluginList } from './components/plugin-list';

/** /admin/openai_settings: the provider parts of the config and the web account's plugins. */
export function OpenaiSettingsPage() {
  const { ta, t } = useAdminT();
  const [tab, setTab] = useState<string | null>('providers');
  return (
    <AdminPage title={t('admin.openaiSettingsTitle')}>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="providers">{ta('plugins.providersTab')}</Tabs.Tab>
          <Tabs.Tab value="plugins">{ta('plugins.pluginsTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="providers" pt="md">
          <ConfigEditor sections={PROVIDER_SECTIONS} />
        </Tabs.Panel>
        <Tabs.Panel value="plugins" pt="md">
          <PluginList />
        </Tabs.Panel>
      </Tabs>
    </AdminPage>
  );
}
