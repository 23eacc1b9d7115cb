/**
 * Crash points for fault-injection tests: `FERRY_FAILPOINTS=fill:after-record,…` makes the process kill itself
 * (SIGKILL, as `kill -9` would) when it reaches a named point, so a test can restart it and check what a crash there
 * does. Ignored when ENVIRONMENT is production.
 */
export function failpoint(name: string): void {
  const points = process.env.FERRY_FAILPOINTS;
  if (!points || process.env.ENVIRONMENT === 'production') return;
  if (points.split(',').includes(name)) process.kill(process.pid, 'SIGKILL');
}
