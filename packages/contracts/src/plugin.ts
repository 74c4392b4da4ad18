import { z } from 'zod';

/** A ChatGPT plugin of the web account (SPEC §3 Plugin). Unknown upstream fields are kept. */
export const Plugin = z
  .object({
    id: z.string(),
    namespace: z.string().nullable().optional(),
    manifest: z
      .object({
        api: z
          .object({ type: z.string().optional(), url: z.string().optional() })
          .loose()
          .nullable()
          .optional(),
        auth: z.object({ type: z.string().optional() }).loose().nullable().optional(),
        logo_url: z.string().nullable().optional(),
        contact_email: z.string().nullable().optional(),
        schema_version: z.string().nullable().optional(),
        name_for_model: z.string().nullable().optional(),
        name_for_human: z.string().nullable().optional(),
        description_for_model: z.string().nullable().optional(),
        description_for_human: z.string().nullable().optional(),
        legal_info_url: z.string().nullable().optional(),
      })
      .loose()
      .nullable()
      .optional(),
    categories: z
      .array(z.object({ id: z.string(), title: z.string() }).loose())
      .nullable()
      .optional(),
    domain: z.string().nullable().optional(),
    status: z.string().nullable().optional(),
    user_settings: z
      .object({
        is_authenticated: z.boolean().nullable().optional(),
        is_installed: z.boolean().nullable().optional(),
      })
      .loose()
      .nullable()
      .optional(),
    oauth_client_id: z.string().nullable().optional(),
  })
  .loose();
export type Plugin = z.infer<typeof Plugin>;

export const PluginList = z.object({ items: z.array(Plugin), count: z.number().int() });
export type PluginList = z.infer<typeof PluginList>;
