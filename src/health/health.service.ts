import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { rpcChainCheckOf } from '../chains/chain-checked-fetch.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.js';
import { ProjectionsService } from '../../projections/projections.service.js';
import { LogWatermark } from './log-watermark.js';
import { projectionLag } from './projection-lag.js';

export interface CheckResult {
  status: 'up' | 'down';
  latencyMs?: number;
  /** How long ago the probe took this reading (ms), when the answer was built; absent before the first reading. */
  ageMs?: number;
  error?: string;
  [detail: string]: unknown;
}

export interface HealthReport {
  status: 'ok' | 'error';
  checks: { database: CheckResult; eventStore: CheckResult; projections: CheckResult; chains: CheckResult };
}

type Part = keyof HealthReport['checks'];

interface Reading {
  readonly result: CheckResult;
  /** performance.now() when the reading was taken (monotonic: a wall-clock step never makes one look fresh). */
  readonly at: number;
}

const CHECK_TIMEOUT_MS = 3000;

/**
 * Ready = the database and the event store answer, and every projection is live and within its lag limit. `chains`
 * reports each EVM chain's RPC as this process's clients last found it (read from memory; a chain not read yet is
 * `unchecked`): one serving another chain is `down` there, and alerted on through `ferry_rpc_chain_mismatch`, but
 * does not make the instance unready (nothing is read on that chain anyway; every instance shares the setting, so
 * a 503 would take the whole API away over one chain). The event
 * store's check also reports the log's xmin watermark (`watermark.ageMs`, `watermark.heldBy`): how long catch-up
 * readers have been held below a running transaction, and which session holds it (docs/decisions/0002, 0020).
 *
 * A background probe reads the three parts every `health.probeIntervalMs`; `GET /health` answers from the last
 * readings, so a load balancer polling it costs no query. Each check says how old its reading is (`ageMs`), and a
 * reading older than `health.maxReadingAgeMs` is reported down whatever it said: a probe that stopped (a hung
 * event loop, a crashed loop) must not leave an old "up" standing.
 */
@Injectable()
export class HealthService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly readings: Partial<Record<Part, Reading>> = {};
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private stopped = false;
  private readonly watermark = new LogWatermark();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projections: ProjectionsService,
  ) {}

  /** The first reading is taken before the app listens, so the first `/health` answers from a real one. */
  async onApplicationBootstrap(): Promise<void> {
    this.probe();
    await this.round;
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
  }

  /** The last readings, each with its age; stale or missing ones are down. */
  report(): HealthReport {
    const at = performance.now();
    const checks = {
      database: this.reported('database', at),
      eventStore: this.reported('eventStore', at),
      projections: this.reported('projections', at),
      chains: this.reported('chains', at),
    };
    // A chain whose RPC serves another chain is reported, not a readiness failure: nothing is read there anyway, and
    // one chain's misconfiguration must not take every instance (all configured alike) out of the load balancer.
    const up = [checks.database, checks.eventStore, checks.projections].every(
      (result) => result.status === 'up',
    );
    return { status: up ? 'ok' : 'error', checks };
  }

  /** Takes a reading now (after the round in flight, which may have read before the caller's change). */
  async readNow(): Promise<void> {
    await this.round;
    if (this.stopped) return;
    // Another caller started a round meanwhile: it began after ours was asked for.
    if (this.round) return this.round;
    clearTimeout(this.timer);
    this.probe();
    await this.round;
  }

  private reported(part: Part, at: number): CheckResult {
    const reading = this.readings[part];
    if (!reading) return { status: 'down', error: 'not read yet (the health probe is starting)' };
    const ageMs = Math.round(at - reading.at);
    const limit = this.config.health.maxReadingAgeMs;
    if (ageMs > limit) {
      return {
        ...reading.result,
        status: 'down',
        ageMs,
        error: `last read ${ageMs} ms ago (limit ${limit} ms): the health probe is not running`,
      };
    }
    return { ...reading.result, ageMs };
  }

  private probe(): void {
    if (this.stopped) return;
    this.round = this.readAll().finally(() => {
      this.round = undefined;
      if (this.stopped) return;
      this.timer = setTimeout(() => this.probe(), this.config.health.probeIntervalMs);
      this.timer.unref();
    });
  }

  private async readAll(): Promise<void> {
    const take = async (part: Part, read: () => Promise<Record<string, unknown>>) => {
      const result = await check(read);
      this.readings[part] = { result, at: performance.now() };
    };
    await Promise.all([
      take('database', async () => {
        await this.db.query('SELECT 1');
        return { kind: this.db.kind };
      }),
      take('eventStore', async () => {
        await this.store.ping();
        // The PostgreSQL log is read below the xmin watermark: say how long it has been held, and by whom.
        if (this.store.kind !== 'postgres' || this.db.kind !== 'postgres') return { kind: this.store.kind };
        return { kind: this.store.kind, watermark: await this.watermark.read(this.db) };
      }),
      take('projections', () => projectionLag(this.projections, this.config.health.maxProjectionLagSeconds)),
      Promise.resolve().then(() => {
        this.readings.chains = { result: this.rpcChains(), at: performance.now() };
      }),
    ]);
  }

  /** Each EVM chain's RPC as this process's clients last found it (chain-checked-fetch.ts): no I/O. */
  private rpcChains(): CheckResult {
    const chains: Record<string, Record<string, unknown>> = {};
    const wrong: string[] = [];
    for (const chain of this.config.chains.all()) {
      if (chain.vmType !== 'evm' || !chain.rpcUrl) continue;
      const check = rpcChainCheckOf(chain.rpcUrl, chain.id);
      const variable = chain.rpcUrlVariable ?? undefined;
      if (check?.status === 'wrong-chain') {
        chains[chain.id] = {
          status: 'down',
          reason: 'wrong-chain',
          servedChainId: check.servedChainId,
          variable,
        };
        wrong.push(`chain ${chain.id}'s RPC (${variable ?? 'rpcUrl'}) serves chain ${check.servedChainId}`);
      } else {
        chains[chain.id] = { status: check ? 'up' : 'unchecked' };
      }
    }
    return wrong.length > 0
      ? { status: 'down', error: `${wrong.join('; ')}: nothing is read there`, chains }
      : { status: 'up', chains };
  }
}

async function check(probe: () => Promise<Record<string, unknown>>): Promise<CheckResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)),
        CHECK_TIMEOUT_MS,
      );
    });
    const details = await Promise.race([probe(), timeout]);
    return { status: 'up', latencyMs: Math.round(performance.now() - started), ...details };
  } catch (error) {
    const details = (error as { details?: unknown }).details;
    return { status: 'down', error: (error as Error).message, ...(details ? { projections: details } : {}) };
  } finally {
    clearTimeout(timer);
  }
}
