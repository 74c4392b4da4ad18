import { Tabs } from '@mantine/core';
import { useState } from 'react';
import { AdminPage } from '../shared/admin-page';
import { useAdminT } from '../shared/admin-i18n';
import { CompletionLog } from './components/completion-log';
import { ServerLog } from './components/server-log';

/** /admin/log: the server log and the ask (completion) log; only the open tab fetches. */
export function LogPage() {
  const { ta, t } = useAdminT();
  const [tab, setTab] = useState<string | null>('server');
  return (
    <AdminPage title={t('admin.logTitle')}>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="server">{ta('log.serverTab')}</Tabs.Tab>
          <Tabs.Tab value="completions">{ta('log.completionTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="server" pt="md">
          <ServerLog />
        </Tabs.Panel>
        <Tabs.Panel value="completions" pt="md">
          <CompletionLog />
        </Tabs.Panel>
      </Tabs>
    </AdminPage>
  );
}
