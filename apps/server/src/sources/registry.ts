import type { ChatSource } from '@cc/contracts';
import { openaiApiAdapter } from './openai-api';
import { openaiWebAdapter } from './openai-web/adapter';
import type { SourceAdapter } from './types';

/** The adapter of each source. Tests may register another one (a fake source) on their own context. */
export interface AdapterRegistry {
  get(source: ChatSource): SourceAdapter;
  register(adapter: SourceAdapter): void;
}

export function createAdapterRegistry(
  adapters: SourceAdapter[] = [openaiWebAdapter, openaiApiAdapter],
): AdapterRegistry {
  const bySource = new Map(adapters.map((a) => [a.source, a]));
  return {
    get(source) {
      const adapter = bySource.get(source);
      if (!adapter) throw new Error(`no adapter for source ${source}`);
      return adapter;
    },
    register(adapter) {
      bySource.set(adapter.source, adapter);
    },
  };
}
