// Plain tables, no zod: the web client's first page shows model names and colours from here without loading the
// schemas (model-schemas.ts holds the enums built from these lists).
export const SOURCES = ['openai_web', 'openai_api'] as const;
type ChatSource = (typeof SOURCES)[number];

export const WEB_MODELS = [
  'gpt_3_5',
  'gpt_3_5_mobile',
  'gpt_4',
  'gpt_4_mobile',
  'gpt_4_browsing',
  'gpt_4_code_interpreter',
  'gpt_4_plugins',
  'gpt_4_dalle',
] as const;
export const API_MODELS = ['gpt_3_5', 'gpt_4'] as const;

type WebModel = (typeof WEB_MODELS)[number];
type ApiModel = (typeof API_MODELS)[number];
export type AnyModel = WebModel | ApiModel;

export const MODELS_BY_SOURCE: Record<ChatSource, readonly AnyModel[]> = {
  openai_web: WEB_MODELS,
  openai_api: API_MODELS,
};

/** Default product model → upstream model code. Admins edit the mapping in the config. */
export const DEFAULT_WEB_MODEL_CODES: Record<WebModel, string> = {
  gpt_3_5: 'text-davinci-002-render-sha',
  gpt_3_5_mobile: 'text-davinci-002-render-sha-mobile',
  gpt_4: 'gpt-4',
  gpt_4_mobile: 'gpt-4-mobile',
  gpt_4_browsing: 'gpt-4-browsing',
  gpt_4_code_interpreter: 'gpt-4-code-interpreter',
  gpt_4_plugins: 'gpt-4-plugins',
  gpt_4_dalle: 'gpt-4-dalle',
};
export const DEFAULT_API_MODEL_CODES: Record<ApiModel, string> = {
  gpt_3_5: 'gpt-3.5-turbo',
  gpt_4: 'gpt-4',
};

export function isModelOfSource(source: ChatSource, model: string): model is AnyModel {
  return (MODELS_BY_SOURCE[source] as readonly string[]).includes(model);
}

/** GPT-4 family: the web account shares a cap of 50 of these per 3 hours (SPEC §9). */
export function isGpt4Model(model: string): boolean {
  return model.startsWith('gpt_4');
}

/** Display style of a model: its colour and avatar style (SPEC §9). */
export type ModelStyle = 'default' | 'browsing' | 'plugins' | 'code-interpreter' | 'dalle';
export type ModelColor = 'green' | 'darkgreen' | 'purple' | 'darkpurple';

export interface ModelDisplay {
  /** Label shown next to messages and in selects. */
  label: string;
  color: ModelColor;
  style: ModelStyle;
}

export const MODEL_DISPLAY: Record<AnyModel, ModelDisplay> = {
  gpt_3_5: { label: 'GPT-3.5', color: 'green', style: 'default' },
  gpt_3_5_mobile: { label: 'GPT-3.5 (Mobile)', color: 'darkgreen', style: 'default' },
  gpt_4: { label: 'GPT-4', color: 'purple', style: 'default' },
  gpt_4_mobile: { label: 'GPT-4 (Mobile)', color: 'darkpurple', style: 'default' },
  gpt_4_browsing: { label: 'GPT-4 (Browsing)', color: 'purple', style: 'browsing' },
  gpt_4_code_interpreter: { label: 'GPT-4 (Code Interpreter)', color: 'purple', style: 'code-interpreter' },
  gpt_4_plugins: { label: 'GPT-4 (Plugins)', color: 'purple', style: 'plugins' },
  gpt_4_dalle: { label: 'GPT-4 (DALL·E)', color: 'purple', style: 'dalle' },
};

/** Avatar background per style (SPEC §9 avatar colours). */
export const AVATAR_COLORS: Record<ModelStyle | 'user', string> = {
  user: 'black',
  default: 'green',
  browsing: 'lightblue',
  plugins: 'darkblue',
  'code-interpreter': 'darkgreen',
  dalle: 'darkpurple',
};

export const MAX_PLUGINS_PER_CONVERSATION = 3;
export const MAX_IMAGES_PER_ASK = 4;
