import { Avatar, Badge, Group, Text } from '@mantine/core';
import { memo } from 'react';
import { AVATAR_COLORS, MODEL_DISPLAY } from '@cc/contracts';
import type { AnyModel, ModelDisplay, ModelStyle } from '@cc/contracts';
import { CodeIcon, GlobeIcon, ImageIcon, PuzzleIcon, SparkIcon, UserIcon } from './icons';

/** CSS colours of the SPEC §9 model and avatar colour names (avatar backgrounds under a white icon). */
export const COLOR_VALUES: Record<string, string> = {
  green: '#10a37f',
  darkgreen: '#0b6b53',
  purple: '#ab68ff',
  darkpurple: '#6e3fb0',
  black: '#202123',
  lightblue: '#3da5d9',
  darkblue: '#1f4e8c',
};

/**
 * The model name colours as text: CSS variables (styles/app.css) shaded per theme, so a name reads at 4.5:1 on the
 * page, on cards and on its own light badge in light and dark alike.
 */
export const TEXT_COLOR_VALUES: Record<string, string> = {
  green: 'var(--cc-model-green)',
  darkgreen: 'var(--cc-model-darkgreen)',
  purple: 'var(--cc-model-purple)',
  darkpurple: 'var(--cc-model-darkpurple)',
};

function textColor(name: string): string {
  return TEXT_COLOR_VALUES[name] ?? 'var(--cc-model-green)';
}

const FALLBACK: ModelDisplay = { label: '', color: 'green', style: 'default' };

export function modelDisplay(model: string | null | undefined): ModelDisplay {
  if (!model) return { ...FALLBACK, label: '?' };
  return MODEL_DISPLAY[model as AnyModel] ?? { ...FALLBACK, label: model };
}

const STYLE_ICONS: Record<ModelStyle, typeof SparkIcon> = {
  default: SparkIcon,
  browsing: GlobeIcon,
  plugins: PuzzleIcon,
  'code-interpreter': CodeIcon,
  dalle: ImageIcon,
};

/**
 * The model's avatar: colour by style (SPEC §9 avatar colours), icon by style. An image named after the model
 * (or `label`, which is also its tooltip), or hidden from assistive technology when `decorative` (the model's
 * name is written beside it). Memoised: a streaming answer's row re-renders every frame, its avatar need not
 * (Mantine resolves an avatar's colours on every render).
 */
export const ModelAvatar = memo(function ModelAvatar({
  model,
  size = 28,
  decorative = false,
  label,
}: {
  model: string | null | undefined;
  size?: number;
  decorative?: boolean;
  /** The image's name and tooltip instead of the model's label (e.g. with its source). */
  label?: string;
}) {
  const display = modelDisplay(model);
  const Icon = STYLE_ICONS[display.style];
  const background = COLOR_VALUES[AVATAR_COLORS[display.style]] ?? COLOR_VALUES.green;
  return (
    <Avatar
      size={size}
      radius="sm"
      styles={{ placeholder: { background, color: '#fff' } }}
      {...(decorative
        ? { 'aria-hidden': true }
        : { role: 'img', 'aria-label': label ?? display.label, title: label })}
    >
      <Icon size={Math.round(size * 0.6)} />
    </Avatar>
  );
});

/** The user's avatar. Memoised like the model's: a streaming answer's row re-renders every frame. */
export const UserAvatar = memo(function UserAvatar({ size = 28 }: { size?: number }) {
  return (
    <Avatar
      size={size}
      radius="sm"
      styles={{ placeholder: { background: COLOR_VALUES[AVATAR_COLORS.user], color: '#fff' } }}
    >
      <UserIcon size={Math.round(size * 0.6)} />
    </Avatar>
  );
});

/** The model name in its colour (3.5 green, 3.5 mobile dark green, 4 mobile dark purple, other 4s purple). */
export function ModelLabel({
  model,
  withAvatar = false,
}: {
  model: string | null | undefined;
  withAvatar?: boolean;
}) {
  const display = modelDisplay(model);
  return (
    // A model's name is one piece ("GPT-3.5" broke into "GPT-" and "3.5" in a phone's header).
    <Group gap={6} wrap="nowrap" component="span" style={{ flexShrink: 0, whiteSpace: 'nowrap' }}>
      {withAvatar && <ModelAvatar model={model} size={20} decorative />}
      <Text component="span" fw={600} size="sm" c={textColor(display.color)} data-model-color={display.color}>
        {display.label}
      </Text>
    </Group>
  );
}

export function ModelBadge({ model }: { model: string | null | undefined }) {
  const display = modelDisplay(model);
  return (
    <Badge variant="light" color={textColor(display.color)} tt="none" data-model-color={display.color}>
      {display.label}
    </Badge>
  );
}
