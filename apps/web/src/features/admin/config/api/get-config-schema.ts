import { queryOptions, useQuery } from '@tanstack/react-query';
import { BOOTSTRAP_ONLY_KEYS, ConfigWrite, CredentialsWrite, RESTART_REQUIRED_KEYS } from '@cc/contracts';
import type { ConfigSchemas } from '@cc/contracts';
import { adminApiPaths } from '../../../../config/admin-paths';
import { ApiError, apiClient } from '../../../../lib/api-client';
import { adminKeys } from '../../shared/query-keys';
import type { JsonSchema } from '../lib/json-schema';

export interface ConfigFormSchemas {
  config: JsonSchema;
  credentials: JsonSchema;
  restart_required_keys: string[];
  /** Key prefixes set only in config.yaml or the environment: shown read-only. */
  bootstrap_only_keys: string[];
}

/** The same schemas the server publishes, built from the contract (used when the server has no schema route). */
export function localSchemas(): ConfigFormSchemas {
  const options = { io: 'input', unrepresentable: 'any' } as const;
  return {
    config: ConfigWrite.toJSONSchema(options) as JsonSchema,
    credentials: CredentialsWrite.toJSONSchema(options) as JsonSchema,
    restart_required_keys: [...RESTART_REQUIRED_KEYS],
    bootstrap_only_keys: [...BOOTSTRAP_ONLY_KEYS],
  };
}

export async function getConfigSchema(): Promise<ConfigFormSchemas> {
  try {
    const schemas = await apiClient.get<ReturnType<typeof ConfigSchemas.parse>>(adminApiPaths.configSchema, {
      silent: true,
    });
    return {
      config: schemas.config,
      credentials: schemas.credentials,
      restart_required_keys: schemas.restart_required_keys,
      bootstrap_only_keys: schemas.bootstrap_only_keys ?? [...BOOTSTRAP_ONLY_KEYS],
    };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return localSchemas();
    throw error;
  }
}

export const configSchemaQueryOptions = queryOptions({
  queryKey: adminKeys.configSchema,
  queryFn: getConfigSchema,
  staleTime: Infinity,
});

export function useConfigSchema() {
  return useQuery(configSchemaQueryOptions);
}
