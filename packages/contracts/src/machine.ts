import { z } from 'zod';
import { VALIDATION_MESSAGES as V } from './errors';
import { ChatSource } from './model-schemas';
import { RowId, RowIdParam } from './ids';

export const MACHINE_STATUSES = ['online', 'offline', 'disabled'] as const;
export const MachineStatus = z.enum(MACHINE_STATUSES, { message: V.machineFieldsRequired });

const required = z
  .string({ message: V.machineFieldsRequired })
  .trim()
  .min(1, { message: V.machineFieldsRequired });

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** RFC 1123 labels; the last one not all digits (so 999.1.1.1 is no name either). */
const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*(?![0-9]+$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

/** An IPv4 address, an IPv6 address (bare or in brackets) or a DNS host name. */
export function isServerAddress(value: string): boolean {
  if (IPV4.test(value) || HOST_NAME.test(value)) return true;
  const bare = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  return bare.includes(':') && z.ipv6().safeParse(bare).success;
}

// An empty value is reported once, as required (not also as a bad address).
const address = required
  .max(255)
  .refine((v) => v === '' || isServerAddress(v), { message: V.machineAddress });

const MachineFields = z.object({
  source: ChatSource,
  /** Display name (and Host of the requests when it differs from the address). */
  hostname: address,
  /** Address to connect to: an IP or a DNS name. */
  ip_address: address,
  port: z.number().int().min(1).max(65535),
  /** API path on that host, e.g. `/backend-api/` or `/v1/`. */
  base_path: z.string().max(255),
  use_tls: z.boolean(),
  status: MachineStatus,
  weight: z.number().int().min(1).max(100),
  max_concurrency: z.number().int().min(1).max(256),
});

/** An upstream server a source can use (ARCHITECTURE §6). */
export const MachineCreate = MachineFields.extend({
  base_path: MachineFields.shape.base_path.default(''),
  use_tls: MachineFields.shape.use_tls.default(false),
  weight: MachineFields.shape.weight.default(1),
  max_concurrency: MachineFields.shape.max_concurrency.default(1),
});
export type MachineCreate = z.infer<typeof MachineCreate>;

/** The fields to change (an absent one keeps its value: no defaults here). */
export const MachineUpdate = MachineFields.partial().extend({ id: RowId });
export type MachineUpdate = z.infer<typeof MachineUpdate>;

export const MachineRead = z.object({
  id: z.number().int(),
  source: ChatSource,
  hostname: z.string(),
  ip_address: z.string(),
  port: z.number().int(),
  base_path: z.string(),
  use_tls: z.boolean(),
  status: z.enum(MACHINE_STATUSES),
  weight: z.number().int(),
  max_concurrency: z.number().int(),
  created_at: z.string(),
  last_check_time: z.string().nullable(),
  last_error: z.string().nullable(),
});
export type MachineRead = z.infer<typeof MachineRead>;

/** Live view of a server: what the scheduler sees now. */
export const MachineInfo = MachineRead.extend({
  in_flight: z.number().int(),
  queue_length: z.number().int(),
});
export type MachineInfo = z.infer<typeof MachineInfo>;

export const MachineQuery = z.object({
  id: RowIdParam.optional(),
  source: ChatSource.optional(),
  status: z.enum(MACHINE_STATUSES).optional(),
});
export const MachineIdParams = z.object({ id: RowIdParam });
