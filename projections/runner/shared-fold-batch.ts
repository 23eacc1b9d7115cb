import type { Database } from '../../src/database/database.js';
import { PreparedStatements } from '../../src/database/prepared-statements.js';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import { foldBatch, type FoldResult } from './apply-events.js';
import type { BatchResult } from './checkpointed-batch.js';
import { readCheckpoint } from './projection-registry.js';
import { generationTable, loadStates, prepareSharedRows } from './projection-table.js';

/**
 * The write's text is the same for every batch of a build (its tables, and whether the batch deletes): prepared once
 * per connection, it is not parsed and planned again for each batch (about 8% of the statement's server CPU for
 * request rows). Bounded: each build names a few texts, and past the capacity they run unprepared.
 */
const statements = new PreparedStatements('ferry_shared_fold', 32);

export interface SharedFoldMember {
  readonly projection: Projection;
  readonly generation: number;
}

/**
 * Batches for generations of projections that share a fold (`Projection.fold`: same keys, same `evolve`, same
 * state), being built together, from where their checkpoints stand until the end of the log. Each batch is read
 * once and folded once, and all members' rows and checkpoints are written by ONE statement (`sharedWrite`): each
 * state is serialised, sent and parsed once for all members. The work is pipelined: the next batch is read while
 * one is folded, and folded and serialised while the one before is being written (the states it touches come from
 * the batch before when it touched them, else from the first member's table, where they are committed). Being one
 * statement, the write needs nothing from this process's event loop once sent, so it runs beside the fold. Each
 * checkpoint row is locked (`FOR UPDATE SKIP LOCKED`) and must stand where the batch starts, as in
 * `processCheckpointedBatch`, so nothing is applied twice.
 *
 * Used by `rebuildProjections` (the CLI) and by the runner for generations built at start-up (`tickFold`).
 *
 * When the checkpoints differ (another instance's runner applied a batch to one of them, or one member's write found
 * contention), the member furthest behind is advanced alone through `applyAlone` until they meet again.
 */
export async function processSharedFold(
  db: Database,
  store: EventStore,
  members: readonly SharedFoldMember[],
  batchSize: number,
  applyAlone: (member: SharedFoldMember) => Promise<BatchResult>,
  onBatch?: (processed: number) => void,
  /** Stop after this many batches (a follow loop's round), reporting not caught up. */
  maxBatches = Number.POSITIVE_INFINITY,
): Promise<BatchResult> {
  const [first] = members;
  const positions: Position[] = [];
  for (const member of members) {
    const checkpoint = await readCheckpoint(db, member.projection.name, member.generation);
    if (!checkpoint) return { processed: 0, caughtUp: true, contended: true };
    positions.push(checkpoint.position);
  }
  const behind = positions.reduce(
    (lowest, position, index) => (comparePositions(position, positions[lowest]) < 0 ? index : lowest),
    0,
  );
  if (positions.some((position) => comparePositions(position, positions[behind]) !== 0)) {
    const result = await applyAlone(members[behind]);
    onBatch?.(result.processed);
    return { ...result, caughtUp: false };
  }

  const source = generationTable(first.projection, first.generation);
  let from = positions[0];
  let processed = 0;
  let previous: FoldResult | null = null;
  let writing: Promise<boolean> | null = null;
  let reading = store.readAll({ from, maxCount: batchSize });
  let readingAhead = false;
  try {
    for (let batches = 0; ; batches += 1) {
      const batch = await reading;
      readingAhead = false;
      if (batch.events.length === 0) {
        const contended = writing ? !(await writing) : false;
        return { processed, caughtUp: !contended, contended };
      }
      const last = batch.isEnd || batches + 1 >= maxBatches;
      // Read ahead: the next batch is read while this one is folded.
      if (!last) {
        reading = store.readAll({ from: batch.position, maxCount: batchSize });
        readingAhead = true;
      }
      const keys = new Set<string>();
      for (const event of batch.events) for (const key of first.projection.keysOf(event)) keys.add(key);
      const states = new Map<string, unknown>();
      const missing: string[] = [];
      for (const key of keys) {
        if (previous?.upserts.has(key)) states.set(key, previous.upserts.get(key));
        else if (!previous?.deletes.has(key)) missing.push(key);
      }
      for (const [key, state] of await loadStates(db, first.projection, source, missing)) {
        states.set(key, state);
      }
      const folded = foldBatch(first.projection, states, batch.events);
      // Serialised while the batch before is still being written: only sending waits for it.
      const statement = sharedWrite(members, folded, from, batch);
      // The batch before must be committed before this one starts: its checkpoint is where this one's stands.
      if (writing && !(await writing)) {
        return { processed, caughtUp: false, contended: true };
      }
      writing = db
        .query<{ ok: boolean }>(statement.text, statement.params, { name: statements.nameOf(statement.text) })
        .then(({ rows }) => rows[0]?.ok === true);
      processed += batch.events.length;
      onBatch?.(batch.events.length);
      previous = folded;
      from = batch.position;
      if (last) {
        const contended = !(await writing);
        return { processed, caughtUp: batch.isEnd && !contended, contended };
      }
    }
  } finally {
    // A read ahead that is not needed any more (contention, or an error) must not reject unhandled.
    if (readingAhead) reading.catch(() => undefined);
  }
}

/**
 * The one statement that writes a batch to every member (`prepareSharedRows`) and advances their checkpoints from
 * `from` past the batch, if every checkpoint stands at `from` and none is locked; otherwise it writes nothing and
 * answers `ok` false.
 */
function sharedWrite(
  members: readonly SharedFoldMember[],
  folded: FoldResult,
  from: Position,
  batch: { readonly events: readonly RecordedEvent[]; readonly position: Position },
): { text: string; params: unknown[] } {
  const last = batch.events[batch.events.length - 1];
  const params: unknown[] = [
    members.map((member) => member.projection.name),
    members.map((member) => member.generation),
    from.commit,
    from.prepare,
    batch.position.commit,
    batch.position.prepare,
    batch.events.length,
    last.createdAt.toISOString(),
  ];
  const guard = '(SELECT ok FROM ok)';
  const rows = prepareSharedRows(
    members.map((member) => ({
      projection: member.projection,
      table: generationTable(member.projection, member.generation),
    })),
    folded.upserts,
    folded.deletes,
    guard,
    (value) => `$${params.push(value)}`,
  );
  return {
    text: `WITH locked AS (
        SELECT name, generation FROM projection_checkpoints
         WHERE (name, generation) IN (SELECT * FROM unnest($1::text[], $2::int[]))
           AND commit_position = $3 AND prepare_position = $4
         FOR UPDATE SKIP LOCKED),
      ok AS (SELECT count(*) = ${members.length} AS ok FROM locked),
      ${[
        ...rows,
        `advanced AS (UPDATE projection_checkpoints c
            SET commit_position = $5, prepare_position = $6, events_processed = events_processed + $7,
                last_event_at = $8, updated_at = now()
           FROM locked l WHERE c.name = l.name AND c.generation = l.generation AND ${guard})`,
      ].join(',\n      ')}
      SELECT ok FROM ok`,
    params,
  };
}
