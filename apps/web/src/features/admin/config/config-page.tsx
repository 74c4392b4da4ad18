import { Tabs } from '@mantine/core';
import { useState } from 'react';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { ConfigEditor } from './components/config-editor';
import { CredentialsForm } from './components/credentials-form';

/** /admin/config: the system config and the upstream credentials, as forms generated from their schemas. */
export function ConfigPage() {
  const { ta, t } = useAdminT();
  const [tab, setTab] = useState<string | null>('config');
  return (
    <AdminPage title={t('admin.configTitle')}>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="config">{ta('config.configTab')}</Tabs.Tab>
          <Tabs.Tab value="credentials">{ta('config.credentialsTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="config" pt="md">
          <ConfigEditor />
        </Tabs.Panel>
        <Tabs.Panel value="credentials" pt="md">
          <CredentialsForm />
        </Tabs.Panel>
      </Tabs>
    </AdminPage>
  );
}
