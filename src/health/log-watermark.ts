import type { SqlExecutor } from '../database/database.js';

/** The oldest running transaction that holds a transaction id: what the watermark waits for. */
export interface WatermarkHolder {
  readonly pid: number;
  readonly database: string | null;
  readonly applicationName: string | null;
  readonly state: string | null;
  /** Since the transaction began (null when the server hides it from Ferry's role). */
  readonly transactionAgeMs: number | null;
}

export interface WatermarkReading {
  /** `pg_snapshot_xmin(pg_current_snapshot())`: catch-up readers see the log only below this transaction id. */
  readonly xmin: string;
  /**
   * How long the watermark has stood at `xmin` while a transaction was running, as seen by successive readings
   * (0 when nothing holds it or it just moved; resolution: the probe's interval).
   */
  readonly ageMs: number;
  readonly heldBy: WatermarkHolder | null;
}

interface Row {
  xmin: string;
  xmax: string;
  holder: {
    pid: number;
    database: string | null;
    application_name: string | null;
    state: string | null;
    transaction_age_ms: number | null;
  } | null;
}

/**
 * Follows the PostgreSQL log's xmin watermark (docs/decisions/0002): catch-up readers (projections, the webhook
 * outbox, the solver's job queue) read events only below the oldest running transaction id of the whole cluster, so
 * one long transaction anywhere stalls them all. Each reading says how long the watermark has been held at its
 * value and by which session, so a stall shows on `/health` before projection lag grows.
 */
export class LogWatermark {
  private held: { readonly xmin: string; readonly since: number } | null = null;

  async read(sql: SqlExecutor, now: number = performance.now()): Promise<WatermarkReading> {
    const { rows } = await sql.query<Row>(
      `SELECT pg_snapshot_xmin(s)::text AS xmin, pg_snapshot_xmax(s)::text AS xmax,
              (SELECT json_build_object(
                        'pid', a.pid, 'database', a.datname, 'application_name', a.application_name,
                        'state', a.state,
                        'transaction_age_ms', round(extract(epoch FROM clock_timestamp() - a.xact_start) * 1000))
                 FROM pg_stat_activity a
                WHERE a.backend_xid IS NOT NULL
                ORDER BY age(a.backend_xid) DESC
                LIMIT 1) AS holder
         FROM pg_current_snapshot() AS s`,
    );
    const row = rows[0];
    const holder = row.holder;
    // No session holds a transaction id: everything committed is readable. (xmin = xmax does not say so: a snapshot's
    // xmax is the latest completed id + 1, which a running transaction's newer id can equal.)
    if (!holder) {
      this.held = null;
      return { xmin: row.xmin, ageMs: 0, heldBy: null };
    }
    if (this.held?.xmin !== row.xmin) this.held = { xmin: row.xmin, since: now };
    return {
      xmin: row.xmin,
      ageMs: Math.round(now - this.held.since),
      heldBy: holder
        ? {
            pid: holder.pid,
            database: holder.database,
            applicationName: holder.application_name,
            state: holder.state,
            transactionAgeMs: holder.transaction_age_ms,
          }
        : null,
    };
  }
}
