// `npm run test:pg`: the server's integration suite against PostgreSQL (each test app creates and drops its
// own cc_test_<random> database) and Redis coordination when CC_TEST_REDIS_URL is set.
import { spawnSync } from 'node:child_process';

const env = {
  ...process.env,
  CC_TEST_DATABASE_URL: process.env.CC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  CC_TEST_REDIS_URL: process.env.CC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
};
// Files named on the command line run alone; without any, the whole server suite runs. Options (--reporter …)
// pass through either way.
const given = process.argv.slice(2);
const files = given.filter((a) => /^(apps|packages)\//.test(a));
const args = ['vitest', 'run', '--project', 'node', ...(files.length > 0 ? [] : ['apps/server']), ...given];
const r = spawnSync('npx', args, { stdio: 'inherit', env });
process.exit(r.status ?? 1);
