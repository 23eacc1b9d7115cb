import type { Database, SqlExecutor } from '../../src/database/database.js';
import {
  comparePositions,
  type Position,
  type ReadAllResult,
  type RecordedEvent,
} from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';

/** One generation of a projection and its checkpoint row `(name, generation)`. */
export interface LiveGeneration {
  readonly projection: Projection;
  readonly generation: number;
}

export type ApplyToGeneration = (
  tx: SqlExecutor,
  target: LiveGeneration,
  events: readonly RecordedEvent[],
) => Promise<void>;

/**
 * Applies one batch of the log, read once from `from`, to several generations whose checkpoints stand at `from`, in
 * one transaction: their checkpoint rows are locked in one statement (`FOR UPDATE SKIP LOCKED`), the batch is applied
 * to each one still at `from`, and their checkpoints are advanced in one statement. As in `processCheckpointedBatch`,
 * a row another instance holds, has moved or has dropped (a swap) is left alone, so every event is applied exactly
 * once per generation. Returns the generations the batch was applied to; the caller reads the others again.
 */
export async function applyLiveBatch(
  db: Database,
  targets: readonly LiveGeneration[],
  from: Position,
  batch: ReadAllResult,
  apply: ApplyToGeneration,
): Promise<Set<LiveGeneration>> {
  const names = targets.map((target) => target.projection.name);
  const generations = targets.map((target) => target.generation);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{
      name: string;
      generation: number;
      commit_position: bigint;
      prepare_position: bigint;
    }>(
      `SELECT name, generation, commit_position, prepare_position FROM projection_checkpoints
        WHERE (name, generation) IN (SELECT * FROM unnest($1::text[], $2::integer[]))
        FOR UPDATE SKIP LOCKED`,
      [names, generations],
    );
    const applied = new Set<LiveGeneration>();
    for (const target of targets) {
      const row = rows.find(
        (locked) => locked.name === target.projection.name && locked.generation === target.generation,
      );
      const at = row && { commit: row.commit_position, prepare: row.prepare_position };
      if (at && comparePositions(at, from) === 0) applied.add(target);
    }
    if (applied.size === 0) return applied;
    for (const target of applied) await apply(tx, target, batch.events);
    const last = batch.events[batch.events.length - 1];
    await tx.query(
      `UPDATE projection_checkpoints AS c
          SET commit_position = $3, prepare_position = $4, events_processed = c.events_processed + $5,
              last_event_at = $6, updated_at = now()
         FROM unnest($1::text[], $2::integer[]) AS t(name, generation)
        WHERE c.name = t.name AND c.generation = t.generation`,
      [
        [...applied].map((target) => target.projection.name),
        [...applied].map((target) => target.generation),
        batch.position.commit,
        batch.position.prepare,
        batch.events.length,
        last.createdAt.toISOString(),
      ],
    );
    return applied;
  });
}
