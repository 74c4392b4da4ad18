import type { AdminKey } from './admin-i18n';

/** What a number field accepts. */
export interface NumberRule {
  /** Smallest accepted value. */
  min?: number;
  /** Largest accepted value. */
  max?: number;
  /** Whole numbers only. */
  integer?: boolean;
  /** An empty field is accepted (a nullable setting). */
  optional?: boolean;
}

/** Why a number is refused: an admin message key and its values. */
export interface NumberProblem {
  key: AdminKey;
  values?: Record<string, number>;
}

/**
 * Why the typed number is refused, or null when it is accepted. NaN stands for an empty or unreadable field. A
 * value out of range is refused as typed, never clamped or otherwise corrected.
 */
export function numberProblem(value: number, rule: NumberRule): NumberProblem | null {
  if (Number.isNaN(value)) return rule.optional ? null : { key: 'schema.number' };
  if (!Number.isFinite(value)) return { key: 'schema.number' };
  if (rule.integer && !Number.isInteger(value)) return { key: 'schema.integer' };
  if (rule.min !== undefined && value < rule.min) return { key: 'schema.min', values: { min: rule.min } };
  if (rule.max !== undefined && value > rule.max) return { key: 'schema.max', values: { max: rule.max } };
  return null;
}
