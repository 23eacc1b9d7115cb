import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { Database, QueryResult, SqlExecutor } from '../src/database/database.js';
import { runMigrations } from '../src/database/migrate.js';
import { PostgresDatabase } from '../src/database/postgres-database.js';

/** The local server benchmarks run against (trust auth); `BENCH_DATABASE_URL` overrides it. */
export const BENCH_SERVER_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Multiplies every workload size; `BENCH_SCALE=0.25` for a quick look, `2` for a longer, steadier run. */
export function benchScale(): number {
  const raw = process.env.BENCH_SCALE;
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0)
    throw new Error(`BENCH_SCALE must be a positive number (got "${raw}")`);
  return scale;
}

export interface ScratchDatabase {
  readonly name: string;
  readonly url: string;
  readonly db: PostgresDatabase;
  /** Closes the pool and drops the database. */
  drop(): Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BENCH_SERVER_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated `ferry_bench_<random>` database on the local server, dropped by `drop()`. */
export async function createScratchDatabase(poolSize: number): Promise<ScratchDatabase> {
  const name = `ferry_bench_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(BENCH_SERVER_URL);
  url.pathname = `/${name}`;
  const db = new PostgresDatabase({ url: url.toString(), poolSize, applicationName: 'ferry-bench' });
  let dropped = false;
  const drop = async (): Promise<void> => {
    if (dropped) return;
    dropped = true;
    await db.close().catch(() => undefined);
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  };
  try {
    await runMigrations(db, url.toString());
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, url: url.toString(), db, drop };
}

/** Runs `fn` against a scratch database and always drops it. */
export async function withScratchDatabase<T>(
  poolSize: number,
  fn: (scratch: ScratchDatabase) => Promise<T>,
): Promise<T> {
  const scratch = await createScratchDatabase(poolSize);
  try {
    return await fn(scratch);
  } finally {
    await scratch.drop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Timing and statistics

export const now = (): number => performance.now();

/** Seconds `fn` took, with its value. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = now();
  const value = await fn();
  return { value, seconds: (now() - started) / 1000 };
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Accumulated milliseconds and counts per label (a poor man's profiler for statements and phases). */
export class Breakdown {
  private readonly entries = new Map<string, { ms: number; count: number }>();

  add(label: string, ms: number): void {
    const entry = this.entries.get(label) ?? { ms: 0, count: 0 };
    entry.ms += ms;
    entry.count += 1;
    this.entries.set(label, entry);
  }

  async measure<T>(label: string, fn: () => Promise<T>): Promise<T> {
    const started = now();
    try {
      return await fn();
    } finally {
      this.add(label, now() - started);
    }
  }

  rows(): { label: string; ms: number; count: number }[] {
    return [...this.entries].map(([label, entry]) => ({ label, ...entry })).sort((a, b) => b.ms - a.ms);
  }
}

/** A short label for a SQL statement: its verb and main table, or the function it calls. */
export function statementLabel(text: string): string {
  const sql = text.replace(/\s+/g, ' ').trim();
  const fn = /^SELECT \* FROM (\w+)\(/i.exec(sql);
  if (fn) return `call ${fn[1]}`;
  const verb = sql.split(' ', 1)[0].toUpperCase();
  // Parenthesised parts first (`extract(epoch FROM created_at)`, subqueries), so FROM names the main table.
  let outer = sql;
  for (let previous = ''; previous !== outer;) {
    previous = outer;
    outer = outer.replace(/\([^()]*\)/g, '');
  }
  const table = /\b(?:FROM|INTO|UPDATE)\s+([\w.]+)/i.exec(outer)?.[1] ?? '';
  return table ? `${verb} ${table}` : verb;
}

/** Wraps a Database so every statement's wall time (server, wire and row parsing) lands in a Breakdown. */
export function instrument(db: Database, breakdown: Breakdown): Database {
  const wrap = (sql: SqlExecutor): SqlExecutor => ({
    query<R extends object>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> {
      return breakdown.measure(`sql: ${statementLabel(text)}`, () => sql.query<R>(text, params));
    },
  });
  const outer = wrap(db);
  return {
    kind: db.kind,
    query: outer.query,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
  };
}

/** CPU time spent while a measurement ran: this Node process, and the database's client backends. */
export interface CpuUsage {
  readonly nodeMs: number;
  /** Null when the backends' /proc entries cannot be read (not Linux, or a remote server). */
  readonly postgresMs: number | null;
}

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (user + system, ms) a process has spent so far, from /proc; null when it cannot be read. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return null;
  }
}

const nodeCpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/**
 * Starts counting CPU time. PostgreSQL time is that of the current database's client backends that exist now
 * (open the pool's connections first, e.g. with a warm-up); WAL writer and checkpointer are not counted. Other
 * processes on the machine slow the wall clock but barely move these figures, which makes them the steadier
 * measure of cost on a shared machine.
 */
export async function startCpu(db: Database): Promise<() => CpuUsage> {
  const { rows } = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
  );
  const pids = rows.map((row) => row.pid);
  const before = pids.map(processCpuMs);
  const nodeBefore = nodeCpuMs();
  return () => {
    const nodeMs = nodeCpuMs() - nodeBefore;
    let postgresMs: number | null = pids.length > 0 ? 0 : null;
    pids.forEach((pid, index) => {
      const start = before[index];
      const end = processCpuMs(pid);
      if (postgresMs === null || start === null || end === null) postgresMs = null;
      else postgresMs += end - start;
    });
    return { nodeMs, postgresMs };
  };
}

/**
 * Like `startCpu`, for long measurements through a pool that opens and closes connections: the database's client
 * backends (and parallel workers) are listed again every `intervalMs` and each one's CPU time read, so a backend
 * that ends keeps what it had at its last reading and one that starts counts from its first (what it spends before
 * it is first seen, and after its last reading, is missed: at most an interval each).
 */
export async function startCpuSampled(db: Database, intervalMs = 500): Promise<() => Promise<CpuUsage>> {
  const seen = new Map<number, { first: number; last: number }>();
  const sample = async () => {
    const { rows } = await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND backend_type IN ('client backend', 'parallel worker')`,
    );
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms === null) continue;
      const known = seen.get(pid);
      if (known) known.last = ms;
      else seen.set(pid, { first: ms, last: ms });
    }
  };
  await sample();
  const nodeBefore = nodeCpuMs();
  const timer = setInterval(() => void sample().catch(() => undefined), intervalMs);
  return async () => {
    clearInterval(timer);
    await sample();
    const nodeMs = nodeCpuMs() - nodeBefore;
    let postgresMs = 0;
    for (const { first, last } of seen.values()) postgresMs += last - first;
    return { nodeMs, postgresMs: seen.size > 0 ? postgresMs : null };
  };
}

/**
 * Starts counting the whole machine's CPU time (all processes, from /proc/stat): the share of the cores' capacity
 * that was busy while a measurement ran, to see whether it was CPU-bound. Null when /proc/stat cannot be read.
 */
export function startMachineCpu(): () => { busyShare: number; cores: number } | null {
  const read = (): { busy: number; total: number } | null => {
    try {
      const fields = readFileSync('/proc/stat', 'utf8')
        .split('\n', 1)[0]
        .trim()
        .split(/\s+/)
        .slice(1)
        .map(Number);
      const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
      const idle = fields[3] + fields[4];
      return { busy: total - idle, total };
    } catch {
      return null;
    }
  };
  const before = read();
  return () => {
    const after = read();
    if (!before || !after || after.total === before.total) return null;
    return { busyShare: (after.busy - before.busy) / (after.total - before.total), cores: os.cpus().length };
  };
}

/** The 1-minute load average and the core count, to flag runs disturbed by other work on the machine. */
export function loadAverage(): string {
  return `${os.loadavg()[0].toFixed(2)} (${os.cpus().length} cores)`;
}

// ---------------------------------------------------------------------------------------------------------------
// Output

export const write = (text = ''): void => {
  process.stdout.write(`${text}\n`);
};

/** A plain-text table; numeric-looking cells are right-aligned. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const numeric = /^[-+]?[\d,.]+\s*(%|x|ms|s|\/s)?$/;
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => (numeric.test(cell) ? cell.padStart(widths[index]) : cell.padEnd(widths[index])))
      .join('  ')
      .trimEnd();
  return [
    line(headers),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.map((row) => line(row)),
  ].join('\n');
}

/** A Markdown table, padded the way Prettier lays it out. */
export function formatMarkdownTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = headers.map((header, index) =>
    Math.max(3, header.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${widths.map((width, index) => (cells[index] ?? '').padEnd(width)).join(' | ')} |`;
  return [
    line(headers),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map((row) => line(row)),
  ].join('\n');
}

export const formatInteger = (value: number): string =>
  Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a';

export const formatMs = (value: number): string =>
  Number.isFinite(value) ? `${value.toFixed(2)} ms` : 'n/a';

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly postgres: string;
  readonly postgresSettings: string;
  readonly date: string;
}

export async function machineInfo(db: Database): Promise<MachineInfo> {
  const { rows } = await db.query<{ version: string }>('SELECT version() AS version');
  const settings = await db.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings
      WHERE name IN ('shared_buffers', 'synchronous_commit', 'fsync', 'wal_level', 'max_wal_size')
      ORDER BY name`,
  );
  return {
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    memoryGiB: os.totalmem() / 1024 ** 3,
    node: process.version,
    postgres: rows[0].version,
    postgresSettings: settings.rows
      .map((row) => `${row.name}=${row.setting}${row.unit ? ` ${row.unit}` : ''}`)
      .join(', '),
    date: new Date().toISOString(),
  };
}
