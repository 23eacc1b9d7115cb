import type { Database } from '../src/database/database.js';
import { START } from '../src/event-store/event-store.js';
import { countAfter } from '../src/event-store/postgres/read-all.js';
import { formatInteger, write } from './support.js';

/** Events per stream in the seeded log, and how many streams are active (interleaved) at any point of it. */
export const SEED_EVENTS_PER_STREAM = 10;
export const SEED_ACTIVE_STREAMS = 1_000;
const WINDOW = SEED_EVENTS_PER_STREAM * SEED_ACTIVE_STREAMS;
/** Rows per INSERT statement (each its own transaction, so the log spans many transaction ids). */
const CHUNK = 10_000;

export interface SeededLog {
  readonly events: number;
  readonly streams: number;
  readonly tableMiB: number;
}

/**
 * Fills `events` and `event_streams` with `total` events written set-based (INSERT … SELECT generate_series).
 * The log is a sequence of windows of 10,000 events in which 1,000 streams each receive revisions 0..9 in
 * round-robin order, so a 5,000-event page touches 1,000 streams (5 events each), like a busy log of
 * interleaved aggregates. Revisions are consecutive per stream and `event_streams` holds each stream's last one.
 */
export async function seedLog(db: Database, total: number): Promise<SeededLog> {
  for (let start = 0; start < total; start += CHUNK) {
    const end = Math.min(total, start + CHUNK) - 1;
    await db.query(
      `INSERT INTO events (stream_id, stream_revision, event_id, event_type, data, metadata, created_at)
       SELECT s.stream_id,
              s.revision,
              'seed-' || g,
              (ARRAY['SwapRequested', 'QuoteAccepted', 'DepositObserved', 'TransferSubmitted',
                     'TransferConfirmed'])[1 + s.revision % 5],
              jsonb_build_object(
                'requestId', s.stream_id,
                'chainId', 1 + g % 7,
                'amount', (1000000007::numeric * (g + 1))::text,
                'recipient', '0x' || md5(g::text) || lpad(to_hex(g), 8, '0'),
                'sequence', g),
              jsonb_build_object('correlationId', s.stream_id, 'causationId', 'seed-' || (g - 1),
                                 'producer', 'bench'),
              now() - make_interval(secs => ($3::int - g) / 100.0)
         FROM generate_series($1::int, $2::int) AS g,
              LATERAL (SELECT 'request-' || lpad(((g / $4::int) * $5::int + g % $5::int)::text, 8, '0') AS stream_id,
                              ((g % $4::int) / $5::int)::bigint AS revision) AS s
        ORDER BY g`,
      [start, end, total, WINDOW, SEED_ACTIVE_STREAMS],
    );
  }
  await db.query(
    `INSERT INTO event_streams (stream_id, revision)
     SELECT stream_id, max(stream_revision) FROM events GROUP BY stream_id`,
  );
  await db.query('VACUUM ANALYZE events');
  await db.query('VACUUM ANALYZE event_streams');
  const { rows } = await db.query<{ events: bigint; streams: bigint; bytes: bigint; bad: bigint }>(
    `SELECT (SELECT count(*) FROM events) AS events,
            (SELECT count(*) FROM event_streams) AS streams,
            pg_total_relation_size('events') AS bytes,
            (SELECT count(*) FROM (SELECT stream_id FROM events GROUP BY stream_id
                                    HAVING max(stream_revision) <> count(*) - 1) AS gaps) AS bad`,
  );
  const row = rows[0];
  if (Number(row.events) !== total || row.bad !== 0n) {
    throw new Error(`Seeding failed: ${row.events} events (expected ${total}), ${row.bad} streams with gaps`);
  }
  return { events: total, streams: Number(row.streams), tableMiB: Number(row.bytes) / 1024 ** 2 };
}

/**
 * Waits until all `total` events are readable. Readers only see events below the oldest running transaction id
 * of the whole server (`pg_snapshot_xmin`), so a long write transaction in any database of the same cluster hides
 * the freshly seeded log until it ends. Gives up after `timeoutMs`, naming the transaction in the way.
 */
export async function waitUntilReadable(db: Database, total: number, timeoutMs = 300_000): Promise<void> {
  const started = Date.now();
  let reported = false;
  for (;;) {
    const readable = await countAfter(db, START, total);
    if (readable >= total) {
      if (reported) write(`  readable after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    const { rows } = await db.query<{ pid: number; datname: string | null; age: string | null }>(
      `SELECT pid, datname, (now() - xact_start)::text AS age FROM pg_stat_activity
        WHERE backend_xid IS NOT NULL AND pid <> pg_backend_pid() ORDER BY xact_start LIMIT 1`,
    );
    const holder = rows[0]
      ? `pid ${rows[0].pid} in database ${rows[0].datname ?? '?'}, open for ${rows[0].age ?? '?'}`
      : 'unknown';
    if (Date.now() - started > timeoutMs) {
      throw new Error(
        `Only ${readable} of ${total} seeded events became readable within ${timeoutMs / 1000} s: an older ` +
          `write transaction holds the server's xmin back (${holder})`,
      );
    }
    if (!reported) {
      write(
        `  ${formatInteger(readable)} of ${formatInteger(total)} events readable: waiting for an older write ` +
          `transaction on the server to end (${holder})…`,
      );
      reported = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
