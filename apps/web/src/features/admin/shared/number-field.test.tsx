import { MantineProvider } from '@mantine/core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { i18n } from '../../../i18n';
import { NumberField } from './number-field';
import type { NumberFieldProps } from './number-field';
import { installDomStubs } from './test-dom';

beforeEach(async () => {
  installDomStubs();
  await i18n.changeLanguage('en-US');
});
afterEach(cleanup);

/** A field and the value the form holds, shown as JSON (NaN reads as null). */
function Harness({ initial, ...rule }: Omit<NumberFieldProps, 'value' | 'onChange'> & { initial: number }) {
  const [value, setValue] = useState(initial);
  return (
    <MantineProvider>
      <NumberField label="Count" {...rule} value={value} onChange={setValue} />
      <output data-testid="value">{Number.isNaN(value) ? 'NaN' : String(value)}</output>
      <button type="button" onClick={() => setValue(42)}>
        set 42
      </button>
    </MantineProvider>
  );
}

const input = () => screen.getByRole<HTMLInputElement>('textbox', { name: 'Count' });
const held = () => screen.getByTestId('value').textContent;
const type = (text: string) => {
  fireEvent.change(input(), { target: { value: text } });
  fireEvent.blur(input());
};

describe('NumberField', () => {
  it('keeps a negative number as typed and says it is too small (no sign dropped)', () => {
    render(<Harness initial={3} min={0} integer />);
    type('-5');
    expect(input().value).toBe('-5');
    expect(held()).toBe('-5');
    expect(screen.getByText('Must be at least 0')).toBeTruthy();
  });

  it('does not clamp on blur: 0 under a minimum of 1 stays 0, with the error', () => {
    render(<Harness initial={60} min={1} max={100} integer />);
    type('0');
    expect(input().value).toBe('0');
    expect(held()).toBe('0');
    expect(screen.getByText('Must be at least 1')).toBeTruthy();
    type('101');
    expect(held()).toBe('101');
    expect(screen.getByText('Must be at most 100')).toBeTruthy();
  });

  it('refuses decimals in a whole-number field and an empty field, instead of guessing', () => {
    render(<Harness initial={5} min={1} integer />);
    type('1.5');
    expect(input().value).toBe('1.5');
    expect(screen.getByText('Enter a whole number')).toBeTruthy();
    type('');
    expect(held()).toBe('NaN');
    expect(screen.getByText('Enter a number')).toBeTruthy();
    type('7');
    expect(held()).toBe('7');
    expect(screen.queryByText(/Enter a|Must be/)).toBeNull();
  });

  it('an empty count stands for its empty value (-1 = unlimited) without an error', () => {
    render(<Harness initial={10} min={-1} integer emptyValue={-1} />);
    type('');
    expect(held()).toBe('-1');
    expect(screen.queryByText(/Enter a|Must be/)).toBeNull();
    type('-3');
    expect(screen.getByText('Must be at least -1')).toBeTruthy();
  });

  it('shows a value set from outside', () => {
    render(<Harness initial={1} min={1} />);
    type('0');
    fireEvent.click(screen.getByRole('button', { name: 'set 42' }));
    expect(input().value).toBe('42');
    expect(screen.queryByText(/Must be/)).toBeNull();
  });
});
