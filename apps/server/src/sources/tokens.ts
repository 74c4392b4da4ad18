import { createRequire } from 'node:module';
import cl100k from 'gpt-tokenizer/bpeRanks/cl100k_base';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';
import type { Config } from '@cc/contracts';

/** Token counts of one ask; `estimated` when counted here because the upstream reported none. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  estimated: boolean;
}

let cl100kEncoder: GptEncoding | null = null;
let o200kEncoder: GptEncoding | null = null;

/** Models of the GPT-4o generation and later use o200k_base; older ones (GPT-3.5, GPT-4) cl100k_base. */
const O200K_MODEL = /(^|[^a-z])(gpt[-_]?4[-_.]?o|gpt[-_]?4[-_.]1|gpt[-_]?5|o[1-9])/i;

/**
 * o200k_base's ranks are read from the package when first needed, not bundled and loaded at boot: 2.4 MB of source
 * and ~20 MB of heap with its encoder, for an encoding none of the product's default model codes uses.
 */
const loadPackage = createRequire(import.meta.url);

function encoderFor(model: string): GptEncoding {
  if (O200K_MODEL.test(model))
    return (o200kEncoder ??= GptEncoding.getEncodingApi(
      'o200k_base',
      () => (loadPackage('gpt-tokenizer/bpeRanks/o200k_base') as { default: typeof cl100k }).default,
    ));
  return (cl100kEncoder ??= GptEncoding.getEncodingApi('cl100k_base', () => cl100k));
}

/** The encodings built so far. */
export function builtEncodings(): string[] {
  return [cl100kEncoder && 'cl100k_base', o200kEncoder && 'o200k_base'].filter((e): e is string => !!e);
}

/** Text that reads like a special token (`<|endoftext|>`) is counted as the text it is: users may write it. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Builds now the encodings that `models` (product names or upstream codes) count in — ~0.1 s of CPU and 10–20 MB of
 * heap each — so that the first ask without usage does not stall every open stream while the ranks load. Called at
 * boot and when the configuration is saved, with `configuredModels`; an encoding no configured model uses (o200k_base,
 * unless a model is mapped to GPT-4o or later) is built only if an ask ever needs it.
 */
export function warmTokenizers(models: Iterable<string>): void {
  for (const model of models) encoderFor(model);
}

/** Every model an ask may be counted as: the product's model names and the upstream codes they map to. */
export function configuredModels(config: Config): string[] {
  return [
    ...Object.keys(config.openai_web.model_code_mapping),
    ...Object.values(config.openai_web.model_code_mapping),
    ...Object.keys(config.openai_api.model_code_mapping),
    ...Object.values(config.openai_api.model_code_mapping),
  ];
}

/** Tokens of a text in the encoding of `model` (product name or upstream code). */
export function countTokens(model: string, text: string): number {
  return text ? encoderFor(model).countTokens(text, AS_TEXT) : 0;
}

/** An estimate from the texts sent and received, for an upstream that reports no usage. */
export function estimateUsage(model: string, sent: string[], answer: string): TokenUsage {
  return {
    inputTokens: sent.reduce((n, text) => n + countTokens(model, text), 0),
    outputTokens: countTokens(model, answer),
    estimated: true,
  };
}
