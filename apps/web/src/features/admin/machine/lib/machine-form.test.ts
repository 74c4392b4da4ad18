import { describe, expect, it } from 'vitest';
import {
  EMPTY_MACHINE_FORM,
  machinePayload,
  missingRequired,
  updatePayload,
  validateMachine,
} from './machine-form';

describe('machine form', () => {
  it('requires hostname, IP address and status with the one SPEC message', () => {
    const values = { ...EMPTY_MACHINE_FORM, status: '' as const };
    expect(missingRequired(values)).toBe(true);
    const byField = Object.fromEntries(validateMachine(values).map((i) => [String(i.path[0]), i.message]));
    expect(byField).toMatchObject({
      hostname: 'validation.machineFieldsRequired',
      ip_address: 'validation.machineFieldsRequired',
      status: 'validation.machineFieldsRequired',
    });
  });

  it('refuses an address that is neither an IP nor a host name (a typo such as 999.1.1.1)', () => {
    const values = { ...EMPTY_MACHINE_FORM, hostname: 'api-1', ip_address: '999.1.1.1' };
    expect(validateMachine(values)).toEqual([
      expect.objectContaining({ path: ['ip_address'], message: 'validation.machineAddress' }),
    ]);
    expect(validateMachine({ ...values, ip_address: 'api.example.com' })).toEqual([]);
  });

  it('checks the port range and accepts a complete server', () => {
    const values = { ...EMPTY_MACHINE_FORM, hostname: 'api-1', ip_address: '10.0.0.1' };
    expect(validateMachine(values)).toEqual([]);
    expect(validateMachine({ ...values, port: 70000 }).map((i) => i.path.join('.'))).toEqual(['port']);
    expect(validateMachine({ ...values, port: '' }).map((i) => i.path.join('.'))).toEqual(['port']);
    expect(missingRequired(values)).toBe(false);
  });

  it('refuses numbers out of range with the bound, as the field says it', () => {
    const values = { ...EMPTY_MACHINE_FORM, hostname: 'api-1', ip_address: '10.0.0.1' };
    expect(validateMachine({ ...values, port: 0, weight: 1.5 })).toEqual([
      expect.objectContaining({ path: ['port'], message: 'adminx.schema.min', params: { min: 1 } }),
      expect.objectContaining({ path: ['weight'], message: 'adminx.schema.integer' }),
    ]);
    expect(validateMachine({ ...values, max_concurrency: 300 })).toEqual([
      expect.objectContaining({
        path: ['max_concurrency'],
        message: 'adminx.schema.max',
        params: { max: 256 },
      }),
    ]);
    expect(validateMachine({ ...values, port: '' })).toEqual([
      expect.objectContaining({ path: ['port'], message: 'adminx.schema.number' }),
    ]);
  });

  it('builds create and update bodies', () => {
    const values = { ...EMPTY_MACHINE_FORM, hostname: ' api-1 ', ip_address: '10.0.0.1' };
    expect(machinePayload(values)).toMatchObject({ hostname: 'api-1', port: 443, status: 'online' });
    expect(updatePayload(3, values)).toMatchObject({ id: 3, hostname: 'api-1' });
  });
});
