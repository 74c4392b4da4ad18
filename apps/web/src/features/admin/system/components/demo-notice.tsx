import { Alert, Button, Code, Collapse, SimpleGrid, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SystemInfo } from '@cc/contracts';
import { adminStringsReady, loadAdminStrings } from '../../../../i18n';
import { STORAGE_KEYS, readStorage, writeStorage } from '../../../../lib/storage';
import { useUser } from '../../../../lib/session';
import { useDemoMode } from '../api/get-system-info';

/**
 * The emulator's special prompts (packages/upstream-emulator, "Magic prompts"): each starts the prompt. `web`:
 * only the web source acts it out; the API source gives a plain answer.
 */
export const DEMO_PROMPTS = [
  { trigger: '#browse', key: 'browse', web: true },
  { trigger: '#code', key: 'code', web: true },
  { trigger: '#dalle', key: 'dalle', web: true },
  { trigger: '#plugin', key: 'plugin', web: true },
  { trigger: '#error', key: 'error', web: true },
  { trigger: '#long N', key: 'long', web: false },
  { trigger: '#length', key: 'length', web: false },
  { trigger: '#fault:status=N', key: 'faultStatus', web: false },
  { trigger: '#fault:disconnect=N', key: 'faultDisconnect', web: false },
  { trigger: '#fault:stall=N', key: 'faultStall', web: false },
  { trigger: '#fault:error', key: 'faultError', web: false },
] as const;

type Demo = NonNullable<SystemInfo['demo']>;

/**
 * What demo mode is, with a button that hides it; the prompts that show the special answers fold out, so the note
 * stays two lines above the chat (a phone included).
 */
export function DemoNotice({ demo, onHide }: { demo: Demo; onHide: () => void }) {
  const { t } = useTranslation();
  const [showPrompts, setShowPrompts] = useState(false);
  const sources = demo.sources.map((s) => t(`sources.${s}`)).join(', ');
  return (
    <Alert
      color="blue"
      variant="light"
      role="note"
      title={t('adminx.demo.title')}
      withCloseButton
      closeButtonLabel={t('adminx.demo.hide')}
      onClose={onHide}
      m="sm"
      mb={0}
      py="xs"
      // In the chat page's column: kept whole (not squeezed by the conversation), at most half of it when open.
      style={{ flexShrink: 0, maxHeight: '50%', overflowY: 'auto' }}
      data-testid="demo-notice"
    >
      <Text size="sm">
        {t('adminx.demo.body', { sources, url: demo.emulator_url })}{' '}
        <Button
          variant="subtle"
          size="compact-sm"
          onClick={() => setShowPrompts((v) => !v)}
          aria-expanded={showPrompts}
        >
          {t(showPrompts ? 'adminx.demo.hidePrompts' : 'adminx.demo.showPrompts')}
        </Button>
      </Text>
      <Collapse expanded={showPrompts}>
        <Text size="sm" mt={6}>
          {t('adminx.demo.promptsIntro')}
        </Text>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing={4} verticalSpacing={2} mt={4} component="ul" p={0}>
          {DEMO_PROMPTS.map((p) => (
            <Text key={p.key} size="xs" component="li" style={{ listStyle: 'none' }}>
              <Code>{p.trigger}</Code> {t(`adminx.demo.prompts.${p.key}`)}
              {p.web ? ` ${t('adminx.demo.webOnly')}` : ''}
            </Text>
          ))}
        </SimpleGrid>
        <Text size="xs" c="dimmed" mt={6}>
          {t('adminx.demo.configure')}
        </Text>
      </Collapse>
    </Alert>
  );
}

/**
 * The demo-mode note for superusers on the chat page, until they hide it. Hidden per emulator address, so the
 * note comes back for a new demo setup, not at every visit.
 */
export function DemoModeNotice() {
  const { data: user } = useUser();
  const { data: demo } = useDemoMode(!!user?.is_superuser);
  const [hidden, setHidden] = useState(() => readStorage(STORAGE_KEYS.demoNoticeHidden));
  const shown = !!user?.is_superuser && !!demo && hidden !== demo.emulator_url;
  // The note speaks with the admin strings: fetched when it is to be shown (a superuser in demo mode), so the chat
  // page of everyone else downloads none of them.
  const [stringsReady, setStringsReady] = useState(adminStringsReady);
  useEffect(() => {
    if (!shown || stringsReady) return;
    let live = true;
    loadAdminStrings().then(
      () => live && setStringsReady(true),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [shown, stringsReady]);
  if (!shown || !stringsReady) return null;
  return (
    <DemoNotice
      demo={demo}
      onHide={() => {
        writeStorage(STORAGE_KEYS.demoNoticeHidden, demo.emulator_url);
        setHidden(demo.emulator_url);
      }}
    />
  );
}
