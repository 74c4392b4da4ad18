import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from './server-node-flags.mjs';

/** The young generation's size after a process with these options allocated fast for a while, MB. */
function youngGenerationAfterChurn(options) {
  const churn = `
    const v8 = require('node:v8');
    let kept = [];
    for (let i = 0; i < 3e6; i++) {
      kept.push({ i, text: 'chunk ' + i });
      if (kept.length > 200000) kept = [];
    }
    const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    process.stdout.write(String(young.space_size / 2 ** 20));`;
  return Number(execFileSync(process.execPath, [...options, '-e', churn], { encoding: 'utf8' }));
}

describe("the server's Node options", () => {
  it('cap the young generation at 2 × 8 MB, where V8 alone lets a fast-allocating process reach 2 × 16 MB', () => {
    expect(youngGenerationAfterChurn([])).toBeGreaterThan(16);
    expect(youngGenerationAfterChurn(SERVER_NODE_FLAGS)).toBeLessThanOrEqual(16);
  });
});
