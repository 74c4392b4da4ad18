import { MantineProvider } from '@mantine/core';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import '../../../../i18n';
import { installDomStubs } from '../../shared/test-dom';
import { setAt } from '../lib/json-schema';
import type { JsonSchema } from '../lib/json-schema';
import { SchemaForm } from './schema-form';

beforeEach(installDomStubs);
afterEach(cleanup);

const schema: JsonSchema = {
  type: 'object',
  properties: {
    server: {
      type: 'object',
      properties: {
        enabled: { type: 'boolean', default: true },
        port: { type: 'integer', minimum: 1, maximum: 65535, default: 8000 },
        level: { type: 'string', enum: ['INFO', 'DEBUG'], default: 'INFO' },
        proxy: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }], default: null },
        secret: { anyOf: [{ const: '********' }, { anyOf: [{ type: 'string' }, { type: 'null' }] }] },
        origins: { type: 'array', items: { type: 'string' } },
        mapping: {
          type: 'object',
          propertyNames: { type: 'string', enum: ['a', 'b'] },
          additionalProperties: { type: 'string', minLength: 1 },
        },
      },
    },
  },
};

function Harness({
  initial,
  errors = {},
  readOnlyKeys = [],
}: {
  initial: Record<string, unknown>;
  errors?: Record<string, string>;
  readOnlyKeys?: string[];
}) {
  const [value, setValue] = useState<Record<string, unknown>>(initial);
  return (
    <MantineProvider>
      <SchemaForm
        schema={schema}
        value={value}
        onChange={(path, next) => setValue((v) => setAt(v, path, next))}
        errors={errors}
        restartKeys={['server.port']}
        readOnlyKeys={readOnlyKeys}
      />
      <pre data-testid="value">{JSON.stringify(value)}</pre>
    </MantineProvider>
  );
}

const initial = {
  server: {
    enabled: true,
    port: 8000,
    level: 'INFO',
    proxy: null,
    secret: '********',
    origins: ['http://a'],
    mapping: { a: 'x' },
  },
};
const current = () => JSON.parse(screen.getByTestId('value').textContent ?? '{}').server;

describe('SchemaForm', () => {
  it('renders a fieldset per object and a control per kind', () => {
    render(<Harness initial={initial} />);
    expect(screen.getByRole('group', { name: /server/ })).toBeTruthy();
    expect(screen.getByRole('switch', { name: 'enabled' })).toBeTruthy();
    expect(screen.getByRole('textbox', { name: /port/ })).toBeTruthy();
    // The restart mark on a key that applies after a restart.
    expect(screen.getAllByText('需重启').length).toBe(1);
    expect(screen.getByDisplayValue('http://a')).toBeTruthy();
  });

  it('edits booleans, numbers and nullable strings into the value', () => {
    render(<Harness initial={initial} />);
    fireEvent.click(screen.getByRole('switch', { name: 'enabled' }));
    expect(current().enabled).toBe(false);
    fireEvent.change(screen.getByRole('textbox', { name: /port/ }), { target: { value: '9000' } });
    expect(current().port).toBe(9000);
    const proxy = screen.getByRole('textbox', { name: 'proxy' });
    fireEvent.change(proxy, { target: { value: 'http://p' } });
    expect(current().proxy).toBe('http://p');
    fireEvent.change(proxy, { target: { value: '' } });
    expect(current().proxy).toBeNull();
  });

  it('keeps a number as typed and shows why it is refused, never clamps or drops characters', () => {
    render(<Harness initial={initial} />);
    const port = screen.getByRole<HTMLInputElement>('textbox', { name: /port/ });
    fireEvent.change(port, { target: { value: '1.5' } });
    fireEvent.blur(port);
    expect(port.value).toBe('1.5');
    expect(current().port).toBe(1.5);
    expect(screen.getByText('请输入整数')).toBeTruthy();
    fireEvent.change(port, { target: { value: '0' } });
    fireEvent.blur(port);
    expect(port.value).toBe('0');
    expect(current().port).toBe(0);
    expect(screen.getByText('不能小于 1')).toBeTruthy();
  });

  it('keeps a secret masked until a new value is typed', () => {
    render(<Harness initial={initial} />);
    const secret = screen.getByLabelText('secret');
    expect((secret as HTMLInputElement).value).toBe('');
    fireEvent.change(secret, { target: { value: 'new-secret' } });
    expect(current().secret).toBe('new-secret');
    fireEvent.change(secret, { target: { value: '' } });
    expect(current().secret).toBe('********');
  });

  it('adds and removes record rows with the allowed keys', () => {
    render(<Harness initial={initial} />);
    fireEvent.click(screen.getByRole('button', { name: '添加' }));
    expect(current().mapping).toEqual({ a: 'x', b: '' });
    fireEvent.click(screen.getByRole('button', { name: '删除第 1 行' }));
    expect(current().mapping).toEqual({ b: '' });
  });

  it('disables a section that is set only at startup', () => {
    render(<Harness initial={initial} readOnlyKeys={['server.']} />);
    expect(screen.getByRole('switch', { name: 'enabled' }).matches(':disabled')).toBe(true);
    expect(screen.getByText('启动时设置')).toBeTruthy();
  });

  it('shows the error of a field', () => {
    render(<Harness initial={initial} errors={{ 'server.port': 'Must be at most 65535' }} />);
    expect(screen.getByText('Must be at most 65535')).toBeTruthy();
  });
});
