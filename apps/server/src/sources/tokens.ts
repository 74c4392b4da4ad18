import cl100k from 'gpt-tokenizer/bpeRanks/cl100k_base';
import o200k from 'gpt-tokenizer/bpeRanks/o200k_base';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';

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

function encoderFor(model: string): GptEncoding {
  if (O200K_MODEL.test(model))
    return (o200kEncoder ??= GptEncoding.getEncodingApi('o200k_base', () => o200k));
  return (cl100kEncoder ??= GptEncoding.getEncodingApi('cl100k_base', () => cl100k));
}

/** Text that reads like a special token (`<|endoftext|>`) is counted as the text it is: users may write it. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Builds both encoders now (≈0.2–0.5 s of CPU, ~30 MB of heap for both): called at boot so that the first ask
 * without usage does not stall every open stream while the ranks load.
 */
export function warmTokenizers(): void {
  encoderFor('gpt-4');
  encoderFor('gpt-4o');
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
