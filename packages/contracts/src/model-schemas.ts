import { z } from 'zod';
import { API_MODELS, SOURCES, WEB_MODELS } from './models';

/** The source and model enums as schemas (their lists and display tables are in models.ts). */
export const ChatSource = z.enum(SOURCES);
export type ChatSource = z.infer<typeof ChatSource>;
export const WebModel = z.enum(WEB_MODELS);
export type WebModel = z.infer<typeof WebModel>;
export const ApiModel = z.enum(API_MODELS);
export type ApiModel = z.infer<typeof ApiModel>;
