import type { Database, SqlExecutor } from '../../src/database/database.js';
import {
  comparePositions,
  type EventStore,
  type Position,
  type ReadAllResult,
  type RecordedEvent,
} from '../../src/event-store/event-store.js';
import { readCheckpoint } from './projection-registry.js';

export interface BatchResult {
  /** Events read and checkpointed (handled or skipped by the consumer). */
  readonly processed: number;
  /** Nothing more to read right now. */
  readonly caughtUp: boolean;
  /** Another instance holds or moved this checkpoint; this batch was discarded. */
  readonly contended: boolean;
}

export interface CheckpointedConsumer {
  /** The checkpoint row: `(name, generation)` in `projection_checkpoints`. */
  readonly name: string;
  readonly generation: number;
  readonly batchSize: number;
}

/**
 * One batch of any checkpointed consumer of the global log (projections, the webhook outbox writer): read events
 * after the checkpoint, then in one transaction lock the checkpoint row (`FOR UPDATE SKIP LOCKED`), check it has not
 * moved, let `handle` write what the batch means, and advance the checkpoint. Instances running side by side each
 * skip a locked or moved checkpoint, so every event is handled exactly once. Events are read outside the
 * transaction, which also keeps PGlite (one connection) from waiting on itself.
 */
export async function processCheckpointedBatch<P = undefined>(
  db: Database,
  store: EventStore,
  consumer: CheckpointedConsumer,
  handle: (tx: SqlExecutor, events: readonly RecordedEvent[], prepared: P) => Promise<void>,
  /** Reads what the batch needs from elsewhere (streams, other services) before the transaction opens. */
  prepare?: (events: readonly RecordedEvent[]) => Promise<P>,
): Promise<BatchResult> {
  const next = await nextBatch(db, store, consumer);
  if (!('batch' in next)) return next;
  const { from, batch } = next;
  const prepared = (prepare ? await prepare(batch.events) : undefined) as P;

  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ commit_position: bigint; prepare_position: bigint }>(
      `SELECT commit_position, prepare_position FROM projection_checkpoints
        WHERE name = $1 AND generation = $2 FOR UPDATE SKIP LOCKED`,
      [consumer.name, consumer.generation],
    );
    const locked = rows[0];
    if (
      !locked ||
      comparePositions({ commit: locked.commit_position, prepare: locked.prepare_position }, from) !== 0
    ) {
      return CONTENDED;
    }
    await handle(tx, batch.events, prepared);
    await advanceCheckpoint(tx, consumer, from, batch);
    return { processed: batch.events.length, caughtUp: batch.isEnd, contended: false };
  });
}

/** Another instance holds or moved the checkpoint: the batch was discarded. */
export const CONTENDED: BatchResult = Object.freeze({ processed: 0, caughtUp: false, contended: true });

/**
 * The events after the consumer's checkpoint (`from`: where it stood when read), or the result to answer when there
 * is nothing to handle (no checkpoint row, or nothing new).
 */
export async function nextBatch(
  db: Database,
  store: EventStore,
  consumer: CheckpointedConsumer,
): Promise<{ readonly from: Position; readonly batch: ReadAllResult } | BatchResult> {
  const checkpoint = await readCheckpoint(db, consumer.name, consumer.generation);
  if (!checkpoint) return { processed: 0, caughtUp: true, contended: true };
  const batch = await store.readAll({ from: checkpoint.position, maxCount: consumer.batchSize });
  if (batch.events.length === 0) return { processed: 0, caughtUp: true, contended: false };
  return { from: checkpoint.position, batch };
}

/** Moves the checkpoint from `from` past `batch`; false when it no longer stands at `from` (another instance moved it). */
export async function advanceCheckpoint(
  sql: SqlExecutor,
  consumer: CheckpointedConsumer,
  from: Position,
  batch: ReadAllResult,
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE projection_checkpoints
        SET commit_position = $3, prepare_position = $4, events_processed = events_processed + $5,
            last_event_at = $6, updated_at = now()
      WHERE name = $1 AND generation = $2 AND commit_position = $7 AND prepare_position = $8`,
    [
      consumer.name,
      consumer.generation,
      batch.position.commit,
      batch.position.prepare,
      batch.events.length,
      batch.events[batch.events.length - 1].createdAt.toISOString(),
      from.commit,
      from.prepare,
    ],
  );
  return rowCount > 0;
}

/** Creates a consumer's checkpoint row at the start of the log, unless it exists. */
export async function ensureCheckpoint(sql: SqlExecutor, name: string, generation = 1): Promise<void> {
  await sql.query(
    'INSERT INTO projection_checkpoints (name, generation) VALUES ($1, $2) ON CONFLICT (name, generation) DO NOTHING',
    [name, generation],
  );
}
