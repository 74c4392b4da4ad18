import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's root: scripts run from there, as `npm start` and `npm run db:…` run them. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface ScriptRun {
  code: number;
  out: string;
  err: string;
}

/**
 * A TypeScript entry point (a path from the repository's root) in a process of its own, run with tsx;
 * resolves with its exit code and what it printed once it exits.
 */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out, err }));
  });
}
