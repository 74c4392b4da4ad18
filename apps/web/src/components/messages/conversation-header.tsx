import { Badge, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ChatSource } from '@cc/contracts';
import { usePluginNames } from '../../lib/plugins';
import { ModelLabel } from '../model-display';

interface Props {
  title: string | null | undefined;
  source: ChatSource;
  model: string | null | undefined;
  pluginIds?: string[] | null;
  /** Right-hand side: remaining asks, export buttons… */
  actions?: ReactNode;
  leading?: ReactNode;
}

/** Band above the messages: title, model (colour + label), source and plugins. */
export function ConversationHeader({ title, source, model, pluginIds, actions, leading }: Props) {
  const { t } = useTranslation();
  // Names from the installed list; a plugin it does not know (uninstalled since) shows as "Plugin", never its id.
  const pluginNames = usePluginNames(pluginIds);
  return (
    <div className="cc-conv-header">
      <Group gap="xs" wrap="nowrap" miw={0}>
        {leading}
        <Text fw={600} truncate dir="auto" data-testid="conversation-title">
          {title || t('conversations.untitled')}
        </Text>
        <ModelLabel model={model} withAvatar />
        <Badge variant="outline" size="sm" tt="none" visibleFrom="sm">
          {t(`sources.${source}`)}
        </Badge>
        {pluginIds?.map((id, index) => (
          <Badge
            key={id}
            variant="light"
            size="sm"
            tt="none"
            visibleFrom="sm"
            data-testid="conversation-plugin"
          >
            {pluginNames[index] ?? t('chat.unknownPlugin')}
          </Badge>
        ))}
      </Group>
      <Group gap="xs" wrap="nowrap">
        {actions}
      </Group>
    </div>
  );
}
