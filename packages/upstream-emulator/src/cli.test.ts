import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

describe('cli', () => {
  it('starts, prints the URLs, serves and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8');
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 15_000);
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          const match = /listening on (http:\/\/\S+)[\s\S]*control:/.exec(output);
          if (match?.[1]) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        });
      });
      expect(output).toContain('/backend-api/');
      const models = await fetch(`${url}/v1/models`);
      expect(models.status).toBe(200);
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
