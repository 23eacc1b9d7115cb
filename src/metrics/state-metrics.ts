import { Gauge, type Registry } from 'prom-client';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Database } from '../database/database.js';
import type { ProjectionsService } from '../../projections/projections.service.js';
import type { JobKind } from '../solver/solver-jobs.js';
import { chainHead } from './process-metrics.js';

const JOB_KINDS: readonly JobKind[] = ['fill', 'refund', 'sweep', 'give-back', 'attest'];
const OPEN_JOB_STATES = ['pending', 'sent', 'failed'] as const;
const UNSETTLED_STATES = ['signed', 'broadcast'] as const;

interface StateSources {
  readonly db: Database;
  readonly projections: ProjectionsService;
  readonly chains: ChainRegistry;
}

/**
 * Gauges read when Prometheus scrapes, each with one small query over indexed or small sets (never a count of the
 * history): projection lag, the xmin watermark's age, the webhook outbox, the solver's open jobs, journaled
 * transactions not yet settled, and the chain watchers' cursors. A read that fails leaves its gauge empty for that
 * scrape (the failure shows as missing series, not as a failed scrape). So that "none" is not mistaken for that, the
 * gauges whose labels are few and known (solver jobs by kind and state; the journal by chain the solver sends on and
 * state) answer 0 for every combination with nothing open; the outbox, labelled by API key, only has keys with a
 * backlog.
 */
export function registerStateMetrics(registry: Registry, sources: StateSources): void {
  const { db } = sources;
  const journalChains = sources.chains
    .all()
    .filter((chain) => chain.vmType === 'evm' && chain.rpcUrl)
    .map((chain) => String(chain.id));
  // The two lag gauges are collected together (prom-client asks every metric at once): one read serves both.
  let statusRead: ReturnType<ProjectionsService['status']> | null = null;
  const projectionStatuses = () =>
    (statusRead ??= sources.projections.status().finally(() => (statusRead = null)));
  const gauge = (
    name: string,
    help: string,
    labelNames: readonly string[],
    collect: (set: (labels: Record<string, string>, value: number) => void) => Promise<void>,
  ) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        await collect((labels, value) => this.set(labels, value)).catch(() => undefined);
      },
    });

  gauge(
    'ferry_projection_lag_events',
    'Events appended that the live generation has not applied',
    ['projection'],
    async (set) => {
      for (const status of await projectionStatuses()) {
        if (status.live) set({ projection: status.name }, status.live.lagEvents);
      }
    },
  );
  gauge(
    'ferry_projection_lag_seconds',
    'Age of the oldest event the live generation has not applied',
    ['projection'],
    async (set) => {
      for (const status of await projectionStatuses()) {
        if (status.live) set({ projection: status.name }, status.live.lagSeconds);
      }
    },
  );
  gauge(
    'ferry_xmin_watermark_age_seconds',
    'Age of the oldest transaction holding a transaction id in the cluster: catch-up reads wait behind it (decision 0002)',
    [],
    async (set) => {
      const { rows } = await db.query<{ age: string | null }>(
        // clock_timestamp(), not now(): now() is when this scrape's own transaction began, and a transaction that
        // began after it would read a negative age (as /health's reading does, log-watermark.ts).
        `SELECT greatest(0, extract(epoch FROM clock_timestamp() - min(xact_start)))::text AS age FROM pg_stat_activity
          WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid()`,
      );
      set({}, Number(rows[0]?.age ?? 0));
    },
  );
  gauge(
    'ferry_webhook_outbox',
    'Webhook deliveries not delivered, by API key and state',
    ['api_key', 'state'],
    async (set) => {
      const { rows } = await db.query<{ api_key_id: string; state: string; n: string }>(
        `SELECT api_key_id, state, count(*)::text AS n FROM webhook_deliveries WHERE state IN ('pending', 'failed')
        GROUP BY api_key_id, state`,
      );
      for (const row of rows) set({ api_key: row.api_key_id, state: row.state }, Number(row.n));
    },
  );
  gauge(
    'ferry_webhook_attempts_recent',
    'Webhook delivery attempts of the last 5 minutes, by API key and outcome (ok: a 2xx answer)',
    ['api_key', 'outcome'],
    async (set) => {
      const { rows } = await db.query<{ api_key_id: string; ok: boolean; n: string }>(
        `SELECT d.api_key_id, (a.status_code BETWEEN 200 AND 299) IS TRUE AS ok, count(*)::text AS n
           FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE a.attempted_at > now() - interval '5 minutes' GROUP BY 1, 2`,
      );
      for (const row of rows)
        set({ api_key: row.api_key_id, outcome: row.ok ? 'ok' : 'error' }, Number(row.n));
    },
  );
  gauge(
    'ferry_solver_jobs',
    "The solver's jobs not done, by kind and state",
    ['kind', 'state'],
    async (set) => {
      const { rows } = await db.query<{ kind: string; state: string; n: string }>(
        `SELECT kind, state, count(*)::text AS n FROM solver_jobs WHERE state <> 'done' GROUP BY kind, state`,
      );
      for (const kind of JOB_KINDS) for (const state of OPEN_JOB_STATES) set({ kind, state }, 0);
      for (const row of rows) set({ kind: row.kind, state: row.state }, Number(row.n));
    },
  );
  const journal = `SELECT chain_id::text, state, count(*)::text AS n,
                          extract(epoch FROM now() - min(created_at))::text AS oldest
                     FROM solver_transactions WHERE state IN ('signed', 'broadcast') GROUP BY chain_id, state`;
  gauge(
    'ferry_journal_unsettled',
    'Journaled transactions not yet mined or voided, by chain and state',
    ['chain', 'state'],
    async (set) => {
      const { rows } = await db.query<{ chain_id: string; state: string; n: string }>(journal);
      for (const chain of journalChains) for (const state of UNSETTLED_STATES) set({ chain, state }, 0);
      for (const row of rows) {
        set({ chain: row.chain_id, state: row.state }, Number(row.n));
      }
    },
  );
  gauge(
    'ferry_journal_oldest_unsettled_seconds',
    'Age of the oldest journaled transaction not yet mined or voided, by chain and state',
    ['chain', 'state'],
    async (set) => {
      const { rows } = await db.query<{ chain_id: string; state: string; oldest: string }>(journal);
      for (const chain of journalChains) for (const state of UNSETTLED_STATES) set({ chain, state }, 0);
      for (const row of rows) {
        set({ chain: row.chain_id, state: row.state }, Number(row.oldest));
      }
    },
  );
  gauge(
    'ferry_journal_fee_capped',
    "Released transactions that do not mine at the chain's fees (fee cap below the base fee, or tip too low) and wait: the fees a replacement would need pass the chain's cap (gas.maxFeePerGasWei), by chain",
    ['chain'],
    async (set) => {
      const { rows } = await db.query<{ chain_id: string; n: string }>(
        `SELECT chain_id::text, count(*)::text AS n FROM solver_transactions
          WHERE state IN ('signed', 'broadcast') AND fee_capped IS NOT NULL GROUP BY chain_id`,
      );
      for (const chain of journalChains) set({ chain }, 0);
      for (const row of rows) set({ chain: row.chain_id }, Number(row.n));
    },
  );
  const cursors = async () =>
    (
      await db.query<{ chain_id: string; seen_block: string; final_block: string }>(
        'SELECT chain_id::text, seen_block::text, final_block::text FROM chain_cursors',
      )
    ).rows;
  gauge('ferry_chain_seen_block', 'The last block the watcher scanned, by chain', ['chain'], async (set) => {
    for (const row of await cursors()) set({ chain: row.chain_id }, Number(row.seen_block));
  });
  gauge(
    'ferry_chain_final_block',
    'The last final block the watcher confirmed deposits up to, by chain',
    ['chain'],
    async (set) => {
      for (const row of await cursors()) set({ chain: row.chain_id }, Number(row.final_block));
    },
  );
  gauge(
    'ferry_chain_finality_lag_blocks',
    "Blocks between the chain's head and the last final block the watcher confirmed up to",
    ['chain'],
    async (set) => {
      const heads = new Map(
        (await chainHead.get()).values.map((value) => [String(value.labels.chain), value.value]),
      );
      for (const row of await cursors()) {
        const head = heads.get(row.chain_id);
        if (head !== undefined) set({ chain: row.chain_id }, Math.max(0, head - Number(row.final_block)));
      }
    },
  );
}
