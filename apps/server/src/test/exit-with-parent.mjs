// Preloaded into server processes that tests start (test/cluster.ts): the process exits when the test process that
// started it is gone (a crashed or killed test run), so no instance outlives its test.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(1);
}, 1_000).unref();
