import { Fieldset, Table, Text } from '@mantine/core';
import { API_MODELS, WEB_MODELS } from '@cc/contracts';
import type { ModelPrice } from '@cc/contracts';
import type { ReactNode } from 'react';
import { modelDisplay } from '../../../../components/model-display';
import { useAdminT } from '../../shared/admin-i18n';
import { NumberField } from '../../shared/number-field';

/** Every model a price can be set for: the ones the app maps, then any other key already in the config. */
function modelsOf(prices: Record<string, ModelPrice>): string[] {
  const known = [...new Set<string>([...API_MODELS, ...WEB_MODELS])];
  return [...known, ...Object.keys(prices).filter((m) => !known.includes(m))];
}

export interface PricesFieldProps {
  legend: ReactNode;
  description: string | null;
  /** `billing.prices`: model → price per million input and output tokens. */
  value: unknown;
  onChange: (next: Record<string, ModelPrice>) => void;
  /** Dotted path → message (e.g. `billing.prices.gpt_4.input`). */
  errors: Record<string, string>;
}

/**
 * The price list as a table: one row per model with its input and output price per million tokens. A model with
 * both fields empty has no price (costs nothing); one field filled sets the other to 0.
 */
export function PricesField({ legend, description, value, onChange, errors }: PricesFieldProps) {
  const { ta } = useAdminT();
  const prices = (value ?? {}) as Record<string, ModelPrice>;
  const set = (model: string, side: keyof ModelPrice, amount: number, text: string) => {
    const next = { ...prices };
    const current = next[model] ?? { input: 0, output: 0 };
    const other = side === 'input' ? 'output' : 'input';
    if (text.trim() === '' && !next[model]?.[other]) delete next[model];
    else next[model] = { ...current, [side]: text.trim() === '' ? 0 : amount };
    onChange(next);
  };
  const field = (model: string, side: keyof ModelPrice) => (
    <NumberField
      aria-label={ta(side === 'input' ? 'config.priceInputOf' : 'config.priceOutputOf', {
        model: modelDisplay(model).label || model,
      })}
      value={prices[model]?.[side] ?? Number.NaN}
      optional
      min={0}
      decimalScale={6}
      onChange={(v, text) => set(model, side, v, text)}
      error={errors[`billing.prices.${model}.${side}`]}
      size="xs"
      w={140}
    />
  );
  return (
    <Fieldset legend={legend} data-path="billing.prices" data-testid="prices-editor">
      {description && (
        <Text size="xs" c="dimmed" mb="xs">
          {description}
        </Text>
      )}
      <Table withTableBorder maw={560} verticalSpacing={4}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{ta('config.priceModel')}</Table.Th>
            <Table.Th>{ta('config.priceInput')}</Table.Th>
            <Table.Th>{ta('config.priceOutput')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {modelsOf(prices).map((model) => (
            <Table.Tr key={model} data-model={model}>
              <Table.Td>{modelDisplay(model).label || model}</Table.Td>
              <Table.Td>{field(model, 'input')}</Table.Td>
              <Table.Td>{field(model, 'output')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Fieldset>
  );
}
