import { Anchor, Tabs, Text } from '@mantine/core';
import { useState } from 'react';
import { Link } from 'react-router';
import { paths } from '../../../config/paths';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { ConfigEditor, PROVIDER_SECTIONS } from './components/config-editor';
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
          <Text size="sm" mb="sm">
            {ta('config.providerHint')}{' '}
            <Anchor component={Link} to={paths.admin('openai_settings')} underline="always">
              {ta('config.providerLink')}
            </Anchor>
          </Text>
          <ConfigEditor exclude={PROVIDER_SECTIONS} />
        </Tabs.Panel>
        <Tabs.Panel value="credentials" pt="md">
          <CredentialsForm />
        </Tabs.Panel>
      </Tabs>
    </AdminPage>
  );
}
