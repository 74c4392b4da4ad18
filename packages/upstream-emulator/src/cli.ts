/**
 * Runs the emulator on its own:
 *   tsx packages/upstream-emulator/src/cli.ts --port 8787 [--host 127.0.0.1] [--web-token T] [--api-key K]
 *     [--latency MS] [--tps N] [--chunk-size N]
 * Stops on SIGINT / SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startEmulator } from './server';
import type { Knobs } from './types';

function numberOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`--${name} must be a non-negative number`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'web-token': { type: 'string' },
      'api-key': { type: 'string' },
      latency: { type: 'string' },
      tps: { type: 'string' },
      'chunk-size': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      'Usage: tsx packages/upstream-emulator/src/cli.ts --port N [--host H] [--web-token T] [--api-key K]\n' +
        '       [--latency MS] [--tps TOKENS_PER_SECOND] [--chunk-size CHARS]',
    );
    return;
  }
  const knobs: Partial<Knobs> = {};
  const latency = numberOption(values.latency, 'latency');
  const tps = numberOption(values.tps, 'tps');
  const chunkSize = numberOption(values['chunk-size'], 'chunk-size');
  if (latency !== undefined) knobs.firstTokenLatencyMs = latency;
  if (tps !== undefined) knobs.tokensPerSecond = tps;
  if (chunkSize !== undefined) knobs.chunkSize = chunkSize;

  const emulator = await startEmulator({
    host: values.host,
    port: numberOption(values.port, 'port') ?? 0,
    webAccessToken: values['web-token'],
    apiKey: values['api-key'],
    knobs,
  });
  console.log(
    [
      `Upstream emulator listening on ${emulator.url}`,
      `  openai_web base URL (chatgpt_base_url): ${emulator.webBaseUrl}`,
      `  openai_api base URL (openai_base_url):  ${emulator.apiBaseUrl}`,
      `  control:                                ${emulator.url}/__control/`,
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`Received ${signal}, stopping the emulator…`);
    emulator.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
