import type { ChatSource, MachineRead } from '@cc/contracts';
import type { ServerRow } from '../db/schema';
import { bool } from '../repositories/executor';

export function presentMachine(row: ServerRow): MachineRead {
  return {
    id: row.id,
    source: row.source as ChatSource,
    hostname: row.hostname,
    ip_address: row.ip_address,
    port: row.port,
    base_path: row.base_path,
    use_tls: bool(row.use_tls),
    status: row.status as MachineRead['status'],
    weight: row.weight,
    max_concurrency: row.max_concurrency,
    created_at: row.create_time,
    last_check_time: row.last_check_time,
    last_error: row.last_error,
  };
}
