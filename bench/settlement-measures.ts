import pg from 'pg';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import type { Database } from '../src/database/database.js';
import type { LocalChain } from '../scripts/devnet/local-chain.js';
import type { SettlementFigures } from './settlement.bench.js';
import { rpcRequests } from '../src/metrics/process-metrics.js';
import { percentile, processCpuMs, write } from './support.js';

/**
 * What the settlement benchmark measures beside its wall clock, while (b) runs: CPU of PostgreSQL's backends and of
 * the chains, a V8 profile of this process, the queries sent, and each request's stages from the records.
 */

/** What a query is for, by its text (first match). */
const QUERY_KINDS: readonly (readonly [string, RegExp])[] = [
  ['appends', /ferry_append_to_stream/],
  ['stream reads', /FROM events\s+WHERE stream_id = /],
  ['log reads', /FROM events\s+WHERE \(transaction_id, global_position\) >|FROM \( SELECT 1 FROM events/],
  ['checkpoints and projection rows', /projection_checkpoints|FROM projections /],
  ['projection writes', /_g\d+\b/],
  ['status reads', /FROM request_status /],
  ['solver jobs', /solver_jobs/],
  ['journal', /solver_transactions|solver_nonces/],
  ['watcher', /chain_cursors|deposit_addresses|unmatched_deposits/],
  ['BEGIN / COMMIT', /^(BEGIN|COMMIT|ROLLBACK)$/],
];

/**
 * Counts the queries this process's `pg` clients send until the returned function is called (the app runs in this
 * process), by `QUERY_KINDS`, the rest as `other`.
 */
export function countQueries(): () => Record<string, number> {
  const counts: Record<string, number> = {};
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: string } | undefined;
    const text = (typeof config === 'string' ? config : (config?.text ?? '')).replace(/\s+/g, ' ').trim();
    const kind = QUERY_KINDS.find(([, pattern]) => pattern.test(text))?.[0] ?? 'other';
    counts[kind] = (counts[kind] ?? 0) + 1;
    return original.apply(this, args);
  };
  return () => {
    prototype.query = original;
    return counts;
  };
}

/**
 * Counts the JSON-RPC calls the app in this process makes to the chains (`ferry_rpc_requests_total`, every chain)
 * until the returned function is called. The bench's wallet sends through its own transport, uncounted.
 */
export async function countRpcCalls(): Promise<() => Promise<number>> {
  const total = async () => (await rpcRequests.get()).values.reduce((sum, sample) => sum + sample.value, 0);
  const before = await total();
  return async () => (await total()) - before;
}

const STAGES = [
  ['detected', `SELECT stream_id AS key, created_at FROM events WHERE event_type = 'DepositDetected'`],
  ['confirmed', `SELECT stream_id AS key, created_at FROM events WHERE event_type = 'DepositConfirmed'`],
  ['fill queued', `SELECT 'request-' || request_id AS key, created_at FROM solver_jobs WHERE kind = 'fill'`],
  [
    'fill journaled',
    `SELECT 'request-' || request_id AS key, created_at FROM solver_transactions WHERE purpose = 'fill'`,
  ],
  ['fill submitted', `SELECT stream_id AS key, created_at FROM events WHERE event_type = 'FillSubmitted'`],
  ['fill succeeded', `SELECT stream_id AS key, created_at FROM events WHERE event_type = 'FillSucceeded'`],
] as const;

/** (b)'s stages per request from the records: deposit mined (`minedAt`, epoch ms) → each stage's record. */
export async function stagesOf(
  db: Database,
  requestIds: readonly string[],
  minedAt: readonly number[],
  startedAt: number,
): Promise<SettlementFigures['throughput']['stages']> {
  const index = new Map(requestIds.map((id, i) => [`request-${id.toLowerCase()}`, i]));
  const stages = [];
  for (const [stage, sql] of STAGES) {
    const { rows } = await db.query<{ key: string; created_at: Date }>(sql);
    const delays: number[] = [];
    let last = 0;
    for (const row of rows) {
      const i = index.get(row.key);
      if (i === undefined) continue;
      delays.push(row.created_at.getTime() - minedAt[i]);
      last = Math.max(last, row.created_at.getTime() - startedAt);
    }
    stages.push({
      stage,
      p50Ms: delays.length > 0 ? percentile(delays, 50) : Number.NaN,
      lastSeconds: last / 1000,
    });
  }
  return stages;
}

/**
 * The CPU time of the database's client backends while (b) runs: sampled every 100 ms, since the app's pool opens
 * and closes connections meanwhile (a backend that starts during (b) counts from zero; one that ends loses at most
 * its last 100 ms, idle ones). Null when /proc cannot be read.
 */
export function startPostgresCpu(db: Database): () => Promise<number | null> {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let readable = true;
  let initial = true;
  const sample = async () => {
    const { rows } = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
    );
    for (const { pid } of rows) {
      const cpu = processCpuMs(pid);
      if (cpu === null) {
        readable = false;
        continue;
      }
      if (!first.has(pid)) first.set(pid, initial ? cpu : 0);
      last.set(pid, cpu);
    }
    initial = false;
  };
  let running = sample();
  const timer = setInterval(() => {
    running = running.then(sample, sample);
  }, 100);
  return async () => {
    clearInterval(timer);
    await running.then(sample, sample);
    if (!readable || first.size === 0) return null;
    let total = 0;
    for (const [pid, start] of first) total += (last.get(pid) ?? start) - start;
    return total;
  };
}

/**
 * `BENCH_CPU_PROF_DIR=dir`: a V8 CPU profile of this process (app and wallet) while (b) runs, written to
 * `dir/settlement-<time>.cpuprofile` (open it in Chrome DevTools). Otherwise nothing.
 */
export async function startProfile(): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  if (!dir) return async () => undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `settlement-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
    write(`      CPU profile of (b): ${file}`);
  };
}

export function startChainsCpu(chains: readonly LocalChain[]): () => number | null {
  const read = (): number | null => {
    let total = 0;
    for (const chain of chains) {
      try {
        const stat = readFileSync(`/proc/${chain.pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        total += (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ = 100
      } catch {
        return null;
      }
    }
    return total;
  };
  const before = read();
  return () => {
    const after = read();
    return before === null || after === null ? null : after - before;
  };
}
