import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.js';
import { ProjectionsService } from '../../projections/projections.service.js';

export interface CheckResult {
  status: 'up' | 'down';
  latencyMs?: number;
  error?: string;
  [detail: string]: unknown;
}

export interface HealthReport {
  status: 'ok' | 'error';
  checks: { database: CheckResult; eventStore: CheckResult; projections: CheckResult };
}

const CHECK_TIMEOUT_MS = 3000;

/** Ready = the database and the event store answer, and every projection is live and within its lag limit. */
@Injectable()
export class HealthService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly projections: ProjectionsService,
  ) {}

  async report(): Promise<HealthReport> {
    const [database, eventStore, projections] = await Promise.all([
      check(async () => {
        await this.db.query('SELECT 1');
        return { kind: this.db.kind };
      }),
      check(async () => {
        await this.store.ping();
        return { kind: this.store.kind };
      }),
      check(() => this.projectionLag()),
    ]);
    const up = [database, eventStore, projections].every((result) => result.status === 'up');
    return { status: up ? 'ok' : 'error', checks: { database, eventStore, projections } };
  }

  private async projectionLag(): Promise<Record<string, unknown>> {
    const limit = this.config.health.maxProjectionLagSeconds;
    const statuses = await this.projections.status();
    const details = statuses.map((status) => ({
      name: status.name,
      version: status.version,
      generation: status.live?.generation ?? null,
      lagEvents: status.live?.lagEvents ?? null,
      lagSeconds: status.live?.lagSeconds ?? null,
      building: status.building
        ? { generation: status.building.generation, lagEvents: status.building.lagEvents }
        : null,
    }));
    const failing = statuses.filter(
      (status) => !status.live || status.stale || status.live.lagSeconds > limit,
    );
    if (failing.length > 0) {
      const reasons = failing.map((status) =>
        !status.live
          ? `${status.name} has no live generation yet`
          : status.stale
            ? `${status.name} is serving version ${status.live.version}, rebuilding to ${status.version}`
            : `${status.name} lags ${status.live.lagSeconds.toFixed(1)} s (limit ${limit} s)`,
      );
      throw Object.assign(new Error(reasons.join('; ')), { details });
    }
    return { maxLagSeconds: limit, projections: details };
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
