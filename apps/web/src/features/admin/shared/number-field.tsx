import { NumberInput } from '@mantine/core';
import type { NumberInputProps } from '@mantine/core';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { useAdminT } from './admin-i18n';
import { numberProblem } from './number-check';
import type { NumberRule } from './number-check';

/** What the input holds: a number, or the text typed so far ('', '-', '1.'). */
type Typed = number | string;

export interface NumberFieldProps
  extends
    Omit<
      NumberInputProps,
      'value' | 'onChange' | 'min' | 'max' | 'clampBehavior' | 'allowNegative' | 'allowDecimal' | 'error'
    >,
    NumberRule {
  /** The value; NaN while the field is empty or holds no number. */
  value: number;
  /** The new value, and the text it was read from ('' = empty, '-' = no number yet). */
  onChange: (value: number, text: string) => void;
  /** The value an empty field stands for and shows as empty: NaN (refused unless optional), or -1 = unlimited. */
  emptyValue?: number;
  /** The form's message for this field (e.g. the server's); the field's own check is shown first. */
  error?: ReactNode;
}

function typedToValue(typed: Typed, emptyValue: number): number {
  if (typeof typed === 'number') return typed;
  return typed.trim() === '' ? emptyValue : Number(typed);
}

/**
 * A number input that never rewrites what the admin typed: no clamping to min/max, minus sign and decimals always
 * accepted as typed. A value the rule refuses keeps its text and shows why, and the form's own check refuses to
 * save it (Mantine's default would turn −5 into 5 with allowNegative off, and 0 into 1 on blur with min 1).
 */
export function NumberField({
  value,
  onChange,
  min,
  max,
  integer,
  optional,
  emptyValue = Number.NaN,
  error,
  ...props
}: NumberFieldProps) {
  const { ta } = useAdminT();
  const shown = (v: number): Typed => (Number.isNaN(v) || Object.is(v, emptyValue) ? '' : v);
  const [typed, setTyped] = useState<Typed>(() => shown(value));
  const [edited, setEdited] = useState(false);
  // A value set from outside (reset, "unlimited", +100) replaces the text; the text typed for this value stays.
  const [seenValue, setSeenValue] = useState(value);
  if (!Object.is(seenValue, value)) {
    setSeenValue(value);
    if (!Object.is(typedToValue(typed, emptyValue), value)) setTyped(shown(value));
  }
  // The form's message goes once the value it was about has been changed.
  const [errorFor, setErrorFor] = useState({ error, value });
  if (errorFor.error !== error) setErrorFor({ error, value });
  const formError = Object.is(errorFor.value, value) ? error : undefined;

  // Empty is judged on the text: '-' is no number, even where an empty field is accepted.
  const empty = typeof typed === 'string' && typed.trim() === '';
  const emptyAccepted = optional || !Number.isNaN(emptyValue);
  const problem = empty && emptyAccepted ? null : numberProblem(value, { min, max, integer });
  const ownError = edited && problem ? ta(problem.key, problem.values) : undefined;

  return (
    <NumberInput
      {...props}
      value={typed}
      min={min}
      max={max}
      clampBehavior="none"
      allowNegative
      allowDecimal
      onChange={(next) => {
        setTyped(next);
        setEdited(true);
        onChange(typedToValue(next, emptyValue), String(next));
      }}
      error={ownError ?? formError}
    />
  );
}
