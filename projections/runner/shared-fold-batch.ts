import type { Database } from '../../src/database/database.js';
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
import {
  executeRows,
  generationTable,
  loadStates,
  prepareRows,
  type PreparedRows,
} from './projection-table.js';

export interface SharedFoldMember {
  readonly projection: Projection;
  readonly generation: number;
}

/**
 * Batches for generations of projections that share a fold (`Projection.fold`: same keys, same `evolve`, same
 * state), being built together, from where their checkpoints stand until the end of the log. Each batch is read
 * once and folded once; all members' rows and checkpoints are written in one transaction, the first member's states
 * sent as JSON and the others' copied from its table (`writeMembers`). The work is pipelined: while a batch is
 * being written, the next one is folded and serialised (the states it touches come from the batch before when it
 * touched them, else from the first member's table, where they are committed). Each checkpoint row is locked
 * (`FOR UPDATE SKIP LOCKED`) and must stand where the batch starts, as in `processCheckpointedBatch`, so nothing
 * is applied twice.
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

  let from = positions[0];
  let processed = 0;
  let previous: FoldResult | null = null;
  let writing: Promise<boolean> | null = null;
  let reading = store.readAll({ from, maxCount: batchSize });
  for (let batches = 0; ; batches += 1) {
    const batch = await reading;
    if (batch.events.length === 0) {
      const contended = writing ? !(await writing) : false;
      return { processed, caughtUp: !contended, contended };
    }
    const keys = new Set<string>();
    for (const event of batch.events) for (const key of first.projection.keysOf(event)) keys.add(key);
    const states = new Map<string, unknown>();
    const missing: string[] = [];
    for (const key of keys) {
      if (previous?.upserts.has(key)) states.set(key, previous.upserts.get(key));
      else if (!previous?.deletes.has(key)) missing.push(key);
    }
    for (const [key, state] of await loadStates(
      db,
      first.projection,
      generationTable(first.projection, first.generation),
      missing,
    )) {
      states.set(key, state);
    }
    const folded = foldBatch(first.projection, states, batch.events);
    // Serialised while the batch before is still being written: only sending waits for it.
    const rows = keys.size > 0 ? prepareMembers(members, folded) : [];
    // The batch before must be committed before this one starts: its checkpoint is where this one's stands.
    if (writing && !(await writing)) {
      return { processed, caughtUp: false, contended: true };
    }
    const start = from;
    writing = writeMembers(db, members, start, batch, rows);
    processed += batch.events.length;
    onBatch?.(batch.events.length);
    previous = folded;
    from = batch.position;
    if (batch.isEnd || batches + 1 >= maxBatches) {
      const contended = !(await writing);
      return { processed, caughtUp: batch.isEnd && !contended, contended };
    }
    // Not read earlier (while this batch was folded): the write's round trips would then wait behind the fold.
    reading = store.readAll({ from, maxCount: batchSize });
  }
}

/**
 * The members' rows of one batch: the first member's as usual, the others' with their states copied from the
 * first's table (already parsed and compressed: the same states by definition of a shared fold).
 */
function prepareMembers(members: readonly SharedFoldMember[], folded: FoldResult): PreparedRows[] {
  const source = generationTable(members[0].projection, members[0].generation);
  return members.map((member, index) =>
    prepareRows(
      member.projection,
      generationTable(member.projection, member.generation),
      folded.upserts,
      folded.deletes,
      { stateFrom: index === 0 ? undefined : source },
    ),
  );
}

/**
 * The members' rows (`prepareMembers`, none when the batch touched no row) and checkpoints for one batch, in one
 * transaction. Resolves false, writing nothing, when a checkpoint had moved or is locked.
 */
function writeMembers(
  db: Database,
  members: readonly SharedFoldMember[],
  from: Position,
  batch: { readonly events: readonly RecordedEvent[]; readonly position: Position },
  rows: readonly PreparedRows[],
): Promise<boolean> {
  const last = batch.events[batch.events.length - 1];
  return db.transaction(async (tx) => {
    for (const member of members) {
      const { rows } = await tx.query<{ commit_position: bigint; prepare_position: bigint }>(
        `SELECT commit_position, prepare_position FROM projection_checkpoints
          WHERE name = $1 AND generation = $2 FOR UPDATE SKIP LOCKED`,
        [member.projection.name, member.generation],
      );
      const locked = rows[0];
      if (
        !locked ||
        comparePositions({ commit: locked.commit_position, prepare: locked.prepare_position }, from) !== 0
      ) {
        return false;
      }
    }
    for (const [index, member] of members.entries()) {
      if (rows[index]) await executeRows(tx, rows[index]);
      await tx.query(
        `UPDATE projection_checkpoints
            SET commit_position = $3, prepare_position = $4, events_processed = events_processed + $5,
                last_event_at = $6, updated_at = now()
          WHERE name = $1 AND generation = $2`,
        [
          member.projection.name,
          member.generation,
          batch.position.commit,
          batch.position.prepare,
          batch.events.length,
          last.createdAt.toISOString(),
        ],
      );
    }
    return true;
  });
}
