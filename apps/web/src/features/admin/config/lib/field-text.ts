import type { TFunction } from 'i18next';
import { modelDisplay } from '../../../../components/model-display';

type Path = readonly (string | number)[];

/** What the config forms show for a field: a label in the reader's language and a line of help. */
export interface FieldText {
  label: string;
  help: string | null;
}

const PREFIX = 'adminx.configFields';

/** Is this key a model (a key of a model-code map or a per-model count)? */
function isModelKey(path: Path): boolean {
  const parent = path[path.length - 2];
  return parent === 'model_code_mapping' || parent === 'per_model_ask_count';
}

/**
 * The label and help of a config field, by its path in the document: a section's own keys have their own text
 * (`configFields.sections.<section>.<key>`, and `<section>.<group>.<key>` for a group such as auth.oidc); keys nested
 * deeper (a new user's source settings) share the text of their name (`configFields.leaves.<key>`); models are named as
 * everywhere else; list items are numbered. A key with no text keeps its name (a test checks every key of the config
 * has text).
 */
export function fieldText(t: TFunction, exists: (key: string) => boolean, path: Path): FieldText {
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    const parent = fieldText(t, exists, path.slice(0, -1));
    return { label: t('adminx.config.item', { label: parent.label, n: last + 1 }), help: null };
  }
  const name = String(last ?? '');
  if (isModelKey(path)) return { label: modelDisplay(name).label, help: null };
  const keys = path.filter((p): p is string => typeof p === 'string');
  // A group of keys inside a section (auth.oidc) has its own texts too: `sections.<section>.<group>.<key>`.
  const candidates =
    keys.length === 2 || (keys.length === 3 && path.length === 3)
      ? [`${PREFIX}.sections.${keys.join('.')}`, `${PREFIX}.leaves.${name}`]
      : [`${PREFIX}.leaves.${name}`];
  for (const base of candidates) {
    if (exists(`${base}.label`))
      return { label: t(`${base}.label`), help: exists(`${base}.help`) ? t(`${base}.help`) : null };
  }
  return { label: name, help: null };
}

/** The words for an option of a choice (upload strategy, log level); models by their names; others as they are. */
export function optionText(t: TFunction, exists: (key: string) => boolean, value: string): string {
  if (exists(`${PREFIX}.options.${value}`)) return t(`${PREFIX}.options.${value}`);
  const model = modelDisplay(value);
  return model.label || value;
}

/** A dotted error path ("openai_web.rate_limits.0.window_seconds") as the labels the form shows, joined by ›. */
export function pathLabel(
  t: TFunction,
  exists: (key: string) => boolean,
  dotted: string,
  sectionLabel: (key: string) => string,
): string {
  const path = dotted.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  return path
    .map((_, i) =>
      i === 0 ? sectionLabel(String(path[0])) : fieldText(t, exists, path.slice(0, i + 1)).label,
    )
    .filter((label, i, all) => !(typeof path[i + 1] === 'number' && i + 1 < all.length))
    .join(' › ');
}
