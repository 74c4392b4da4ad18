import { MachineCreate, VALIDATION_MESSAGES } from '@cc/contracts';
import type { ChatSource, MachineRead, MachineUpdate } from '@cc/contracts';
import { fromZodIssue } from '../../shared/form-errors';
import type { PathIssue } from '../../shared/form-errors';

export interface MachineFormValues {
  source: ChatSource;
  hostname: string;
  ip_address: string;
  port: number | '';
  base_path: string;
  use_tls: boolean;
  /** '' until chosen: the status is required. */
  status: MachineRead['status'] | '';
  weight: number | '';
  max_concurrency: number | '';
}

export const EMPTY_MACHINE_FORM: MachineFormValues = {
  source: 'openai_api',
  hostname: '',
  ip_address: '',
  port: 443,
  base_path: '/v1/',
  use_tls: true,
  status: 'online',
  weight: 1,
  max_concurrency: 8,
};

export function machineToForm(machine: MachineRead): MachineFormValues {
  return {
    source: machine.source,
    hostname: machine.hostname,
    ip_address: machine.ip_address,
    port: machine.port,
    base_path: machine.base_path,
    use_tls: machine.use_tls,
    status: machine.status,
    weight: machine.weight,
    max_concurrency: machine.max_concurrency,
  };
}

/** The body to send; empty numbers become NaN so the contract rejects them instead of guessing a value. */
export function machinePayload(values: MachineFormValues): MachineCreate {
  return {
    source: values.source,
    hostname: values.hostname.trim(),
    ip_address: values.ip_address.trim(),
    port: values.port === '' ? Number.NaN : values.port,
    base_path: values.base_path.trim(),
    use_tls: values.use_tls,
    status: values.status as MachineCreate['status'],
    weight: values.weight === '' ? Number.NaN : values.weight,
    max_concurrency: values.max_concurrency === '' ? Number.NaN : values.max_concurrency,
  };
}

/**
 * Validates with the contract's MachineCreate. Missing hostname, IP or status all carry
 * validation.machineFieldsRequired (SPEC §5 "hostname, IP address and status are required").
 */
export function validateMachine(values: MachineFormValues): PathIssue[] {
  const issues: PathIssue[] = [];
  if (values.status === '')
    issues.push({ path: ['status'], message: VALIDATION_MESSAGES.machineFieldsRequired });
  const parsed = MachineCreate.safeParse(machinePayload(values));
  if (!parsed.success) for (const issue of parsed.error.issues) issues.push(fromZodIssue(issue));
  return issues;
}

/** True when any of the three required fields is missing: the form shows the SPEC's summary message. */
export function missingRequired(values: MachineFormValues): boolean {
  return values.hostname.trim() === '' || values.ip_address.trim() === '' || values.status === '';
}

export function updatePayload(id: number, values: MachineFormValues): MachineUpdate {
  return { id, ...machinePayload(values) };
}
