import type { Database, SqlExecutor } from '../database/database.js';
import type { RecordedEvent } from '../event-store/event-store.js';
import { storedError } from './solver-job.js';

export type JobKind = 'fill' | 'refund' | 'sweep' | 'give-back' | 'attest';

/** A job claimed by this worker: `fence` is the token every later write of the worker must name. */
export interface ClaimedJob {
  readonly requestId: string;
  readonly kind: JobKind;
  /** The deposit a job is about: `<chainId>:<txHash>:<logIndex>`. */
  readonly depositKey: string;
  readonly reason: string | null;
  readonly fence: bigint;
  readonly attempts: number;
}

export interface JobRow {
  readonly request_id: string;
  readonly kind: JobKind;
  readonly deposit_key: string;
  readonly state: string;
  readonly reason: string | null;
  readonly attempts: number;
  readonly next_attempt_at: Date;
  readonly leased_until: Date | null;
  readonly last_error: string | null;
  readonly fence: string;
}

/** The key journal entries carry for a job. */
export const jobKey = (job: Pick<ClaimedJob, 'kind' | 'requestId' | 'depositKey'>): string =>
  `${job.kind}:${job.requestId}:${job.depositKey}`;

/** A deposit's identity from its DepositConfirmed data. */
export const depositKeyOf = (data: { chainId: number; txHash: string; logIndex?: number }): string =>
  `${data.chainId}:${data.txHash.toLowerCase()}:${data.logIndex ?? 0}`;

/** The subject of an attestation job (`solver_jobs.deposit_key` of kind `attest`). */
export const attestSubject = {
  deposit: (data: { chainId: number; txHash: string; logIndex?: number }) => `deposit:${depositKeyOf(data)}`,
  fill: (data: { chainId: number; txHash: string }) => `fill:${data.chainId}:${data.txHash.toLowerCase()}`,
  refund: (data: { chainId: number; txHash: string }) =>
    `refund:${data.chainId}:${data.txHash.toLowerCase()}`,
};

const WHERE_JOB = 'request_id = $1 AND kind = $2 AND deposit_key = $3 AND fence = $4';
const jobParams = (job: ClaimedJob) => [job.requestId, job.kind, job.depositKey, job.fence.toString()];

/**
 * The solver's work queue (`solver_jobs`): a fill per confirmed deposit, a refund per deposit whose request failed.
 * Claims are leases with a fencing token: each claim increments `fence`, and every write of the worker (renewal,
 * outcome, the guard its journal entries are signed under) names the token it claimed with, so a worker that outlived
 * its lease can no longer change anything.
 */
export class SolverJobs {
  constructor(
    private readonly db: Database,
    private readonly options: {
      readonly leaseMs: number;
      readonly maxAttempts: number;
      /** Queue an `attest` job for each confirmed deposit, fill and refund (an oracle is configured). */
      readonly attest?: boolean;
    },
  ) {}

  /**
   * The jobs a batch of the log calls for, written in the consumer's transaction. `DepositConfirmed` → a fill of that
   * deposit. `FillFailed`, or a deadline expiry after a deposit, → a refund of the request's confirmed deposit (none
   * when nothing was confirmed: there is nothing to give back). Refunds are keyed by deposit, so a deposit confirmed
   * after an earlier expiry still gets its own.
   */
  async queue(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void> {
    for (const event of events) {
      if (!event.streamId.startsWith('request-')) continue;
      const requestId = event.streamId.slice('request-'.length);
      if (event.type === 'DepositConfirmed') {
        const data = event.data as { chainId: number; txHash: string; logIndex?: number };
        await tx.query(
          `INSERT INTO solver_jobs (request_id, kind, deposit_key) VALUES ($1, 'fill', $2) ON CONFLICT DO NOTHING`,
          [requestId, depositKeyOf(data)],
        );
      }
      await queueDepositAddressJobs(tx, requestId, event);
      if (this.options.attest) await queueAttestation(tx, requestId, event);
      const reason = refundReason(event);
      if (reason !== null) {
        await tx.query(
          `INSERT INTO solver_jobs (request_id, kind, deposit_key, reason)
           SELECT request_id, 'refund', deposit_key, $2 FROM solver_jobs WHERE request_id = $1 AND kind = 'fill'
           ON CONFLICT DO NOTHING`,
          [requestId, reason || null],
        );
      }
    }
  }

  /** Claims up to `limit` due jobs for one lease each. */
  async claim(limit: number): Promise<ClaimedJob[]> {
    const { rows } = await this.db.query<JobRow>(
      `WITH due AS (
         SELECT request_id, kind, deposit_key FROM solver_jobs
          WHERE state IN ('pending', 'sent') AND next_attempt_at <= now()
            AND (leased_until IS NULL OR leased_until < now())
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE solver_jobs j SET leased_until = now() + ($2 || ' milliseconds')::interval, fence = j.fence + 1,
              attempts = j.attempts + 1, updated_at = now()
         FROM due WHERE (j.request_id, j.kind, j.deposit_key) = (due.request_id, due.kind, due.deposit_key)
       RETURNING j.request_id, j.kind, j.deposit_key, j.reason, j.fence::text, j.attempts`,
      [limit, String(this.options.leaseMs)],
    );
    return rows.map((row) => ({
      requestId: row.request_id,
      kind: row.kind,
      depositKey: row.deposit_key,
      reason: row.reason,
      fence: BigInt(row.fence),
      attempts: row.attempts,
    }));
  }

  /** Extends the lease; false when another worker has taken the job. */
  async renew(job: ClaimedJob): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE solver_jobs SET leased_until = now() + ($5 || ' milliseconds')::interval WHERE ${WHERE_JOB}`,
      [...jobParams(job), String(this.options.leaseMs)],
    );
    return rowCount > 0;
  }

  /** For the journal: inside its transaction, locks the job row and checks this worker still holds it. */
  guard(job: ClaimedJob): (tx: SqlExecutor) => Promise<boolean> {
    return async (tx) =>
      (
        await tx.query(
          `SELECT 1 FROM solver_jobs WHERE ${WHERE_JOB} AND state IN ('pending', 'sent') FOR UPDATE`,
          jobParams(job),
        )
      ).rowCount > 0;
  }

  /**
   * `guard` for several jobs at once: locks the rows of those this worker still holds, in key order (so two
   * transactions lock alike), and says for each whether it does.
   */
  guardAll(jobs: readonly ClaimedJob[]): (tx: SqlExecutor) => Promise<boolean[]> {
    return async (tx) => {
      const { rows } = await tx.query<{ request_id: string; kind: JobKind; deposit_key: string }>(
        `SELECT j.request_id, j.kind, j.deposit_key FROM solver_jobs j
           JOIN unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS g(request_id, kind, deposit_key, fence)
             ON (j.request_id, j.kind, j.deposit_key, j.fence) = (g.request_id, g.kind, g.deposit_key, g.fence)
          WHERE j.state IN ('pending', 'sent')
          ORDER BY j.request_id, j.kind, j.deposit_key
            FOR UPDATE OF j`,
        [
          jobs.map((job) => job.requestId),
          jobs.map((job) => job.kind),
          jobs.map((job) => job.depositKey),
          jobs.map((job) => job.fence.toString()),
        ],
      );
      const held = new Set(
        rows.map((row) => jobKey({ kind: row.kind, requestId: row.request_id, depositKey: row.deposit_key })),
      );
      return jobs.map((job) => held.has(jobKey(job)));
    };
  }

  async markSent(job: ClaimedJob): Promise<void> {
    await this.db.query(
      `UPDATE solver_jobs SET state = 'sent', updated_at = now() WHERE ${WHERE_JOB}`,
      jobParams(job),
    );
  }

  async finish(job: ClaimedJob, state: 'done' | 'failed'): Promise<void> {
    await this.db.query(
      `UPDATE solver_jobs SET state = $5, leased_until = NULL, updated_at = now() WHERE ${WHERE_JOB}`,
      [...jobParams(job), state],
    );
  }

  /** Gives the job back to be taken again soon, without counting it as a failure (a transaction still pending). */
  async later(job: ClaimedJob, delayMs: number): Promise<void> {
    await this.db.query(
      `UPDATE solver_jobs SET leased_until = NULL, attempts = greatest(attempts - 1, 0), updated_at = now(),
              next_attempt_at = now() + ($5 || ' milliseconds')::interval WHERE ${WHERE_JOB}`,
      [...jobParams(job), String(delayMs)],
    );
  }

  /**
   * Records a failed attempt: retried after an exponential backoff (1 s, 2 s, 4 s … 5 min). A refund is left `failed`
   * for an operator (`solver:retry`) after `maxAttempts`; a fill never is, since a fill already sent must be followed
   * until it mines or is cancelled, whatever the RPC does meanwhile. Returns true when it gave up.
   */
  async failed(job: ClaimedJob, error: unknown): Promise<boolean> {
    const gaveUp = job.kind !== 'fill' && job.attempts >= this.options.maxAttempts;
    await this.db.query(
      `UPDATE solver_jobs SET leased_until = NULL, last_error = $5, updated_at = now(),
              state = CASE WHEN $6 THEN 'failed' ELSE state END,
              next_attempt_at = now() + least(power(2, greatest(attempts - 1, 0)), 300) * interval '1 second'
        WHERE ${WHERE_JOB}`,
      [...jobParams(job), storedError(error).slice(0, 1000), gaveUp],
    );
    return gaveUp;
  }

  /** Operators: the jobs, newest first (`solver:jobs`). */
  async list(filter: { readonly state?: string; readonly limit: number }): Promise<JobRow[]> {
    const { rows } = await this.db.query<JobRow>(
      `SELECT request_id, kind, deposit_key, state, reason, attempts, next_attempt_at, leased_until, last_error,
              fence::text
         FROM solver_jobs WHERE ($1::text IS NULL OR state = $1) ORDER BY updated_at DESC LIMIT $2`,
      [filter.state ?? null, filter.limit],
    );
    return rows;
  }

  /**
   * Operators: makes a `failed` job (`<kind>:<requestId>[:<depositKey>]`) due now with a fresh attempt count
   * (`solver:retry`). Returns how many jobs it reset.
   */
  async retry(key: string): Promise<number> {
    const [kind, requestId, ...rest] = key.split(':');
    const depositKey = rest.join(':');
    const { rowCount } = await this.db.query(
      `UPDATE solver_jobs SET state = 'pending', attempts = 0, next_attempt_at = now(), leased_until = NULL,
              updated_at = now()
        WHERE kind = $1 AND request_id = $2 AND ($3 = '' OR deposit_key = $3) AND state = 'failed'`,
      [kind, requestId?.toLowerCase() ?? '', depositKey],
    );
    return rowCount;
  }
}

/**
 * Deposit-address jobs: a taken transfer is swept (`sweep`) and its surplus given back; a refused one is given back
 * (`give-back`). Keyed by the transfer: `<chainId>:<txHash>:0`, the surplus `<chainId>:<txHash>:surplus`.
 */
async function queueDepositAddressJobs(
  tx: SqlExecutor,
  requestId: string,
  event: RecordedEvent,
): Promise<void> {
  if (event.type !== 'DepositAddressFunded' && event.type !== 'DepositAddressTransferRefused') return;
  const data = event.data as { chainId: number; txHash: string; surplus?: string; reason?: string };
  const key = `${data.chainId}:${data.txHash.toLowerCase()}`;
  const insert = (kind: JobKind, depositKey: string, reason: string | null) =>
    tx.query(
      `INSERT INTO solver_jobs (request_id, kind, deposit_key, reason) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [requestId, kind, depositKey, reason],
    );
  if (event.type === 'DepositAddressTransferRefused') {
    await insert('give-back', `${key}:0`, data.reason ?? null);
    return;
  }
  await insert('sweep', `${key}:0`, null);
  if (BigInt(data.surplus ?? '0') > 0n) await insert('give-back', `${key}:surplus`, 'SURPLUS');
}

/** An `attest` job for a confirmed deposit, a fill or a refund of the request (AttestJob). */
async function queueAttestation(tx: SqlExecutor, requestId: string, event: RecordedEvent): Promise<void> {
  const data = event.data as { chainId: number; txHash: string; logIndex?: number };
  const subject =
    event.type === 'DepositConfirmed'
      ? attestSubject.deposit(data)
      : event.type === 'FillSucceeded'
        ? attestSubject.fill(data)
        : event.type === 'RefundSucceeded'
          ? attestSubject.refund(data)
          : null;
  if (subject === null) return;
  await tx.query(
    `INSERT INTO solver_jobs (request_id, kind, deposit_key) VALUES ($1, 'attest', $2) ON CONFLICT DO NOTHING`,
    [requestId, subject],
  );
}

/** The refund reason an event calls for: '' for a failed fill, the deadline for an expiry after a deposit; else null. */
function refundReason(event: RecordedEvent): string | null {
  if (event.type === 'FillFailed') return '';
  if (event.type === 'RequestExpired') {
    const reason = (event.data as { reason?: string }).reason ?? '';
    // A quote that simply expired holds no funds; a request that failed by a deadline may.
    if (reason !== '' && reason !== 'QUOTE_EXPIRED') return reason;
  }
  return null;
}
