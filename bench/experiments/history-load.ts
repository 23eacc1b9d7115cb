import pg from 'pg';
import { measureThroughput } from '../http-load.js';
import { BENCH_SERVER_URL, median, processCpuMs, write } from '../support.js';

/**
 * EXPERIMENT, by hand only: A/B of running servers (`history-db.ts serve`, e.g. a build of main and one of a
 * branch) on the same database: each round drives every path on every server in turn (16 keep-alive connections),
 * and reports requests/s, each path ÷ the same server's `/nope` (404) and `/bench/noop`, and the server process's
 * and its database backends' CPU per 1,000 requests (from /proc).
 *   node dist/bench/experiments/history-load.js <database> <key> <seconds> <rounds> <label=url=pid>... -- <path>...
 */

const args = process.argv.slice(2);
const [database, key, seconds, rounds] = args;
const split = args.indexOf('--');
const servers = args.slice(4, split).map((spec) => {
  const [label, url, pid] = spec.split('=');
  return { label, url, pid: Number(pid) };
});
const paths = ['/nope', '/bench/noop', ...args.slice(split + 1)];

async function backendPids(): Promise<number[]> {
  const client = new pg.Client({ connectionString: BENCH_SERVER_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      [database],
    );
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

const sum = (pids: number[]) => pids.reduce((total, pid) => total + (processCpuMs(pid) ?? 0), 0);
const results = new Map<string, { rate: number[]; server: number[]; postgres: number[] }>();

for (let round = 0; round < Number(rounds); round += 1) {
  for (const server of servers) {
    for (const path of paths) {
      const pids = await backendPids();
      const serverBefore = processCpuMs(server.pid) ?? 0;
      const pgBefore = sum(pids);
      const result = await measureThroughput({
        baseUrl: server.url,
        path,
        headers: { 'x-api-key': key },
        connections: 16,
        warmupMs: 500,
        durationMs: Number(seconds) * 1000,
      });
      const expected = path === '/nope' ? result.requests : 0;
      if (result.failures !== expected)
        write(`  ${server.label} ${path}: ${result.failures} answers not 200`);
      const all = results.get(`${server.label} ${path}`) ?? { rate: [], server: [], postgres: [] };
      all.rate.push(result.requestsPerSecond);
      // CPU over warm-up + measured window, per request of the measured window: an over-estimate shared by all.
      all.server.push(((processCpuMs(server.pid) ?? 0) - serverBefore) / result.requests);
      all.postgres.push((sum(pids) - pgBefore) / result.requests);
      results.set(`${server.label} ${path}`, all);
    }
  }
}
const load = (await import('node:os')).loadavg()[0].toFixed(1);
write(`medians of ${rounds} rounds of ${seconds} s, load average ${load}`);
for (const server of servers) {
  const floor = median(results.get(`${server.label} /nope`)!.rate);
  const noop = median(results.get(`${server.label} /bench/noop`)!.rate);
  for (const path of paths) {
    const r = results.get(`${server.label} ${path}`)!;
    const rate = median(r.rate);
    write(
      `${server.label.padEnd(6)} ${path.slice(0, 48).padEnd(48)} ${rate.toFixed(0).padStart(6)} req/s ` +
        `÷404 ${(rate / floor).toFixed(3)} ÷noop ${(rate / noop).toFixed(3)}; CPU per 1,000: server ` +
        `${(1000 * median(r.server)).toFixed(0)} ms, PostgreSQL ${(1000 * median(r.postgres)).toFixed(0)} ms`,
    );
  }
}
