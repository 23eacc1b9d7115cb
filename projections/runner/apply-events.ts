import type { SqlExecutor } from '../../src/database/database.js';
import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import { loadStates, writeRows } from './projection-table.js';

export interface FoldResult {
  readonly upserts: Map<string, unknown>;
  readonly deletes: Set<string>;
}

/** Pure: folds a batch of events over the loaded row states. */
export function foldBatch(
  projection: Projection,
  loaded: ReadonlyMap<string, unknown>,
  events: readonly RecordedEvent[],
): FoldResult {
  const states = new Map<string, unknown>(loaded);
  const touched = new Set<string>();
  for (const event of events) {
    for (const key of projection.keysOf(event)) {
      states.set(key, projection.evolve(states.get(key) ?? null, event, key));
      touched.add(key);
    }
  }
  const upserts = new Map<string, unknown>();
  const deletes = new Set<string>();
  for (const key of touched) {
    const state = states.get(key);
    if (state === null || state === undefined) {
      if (loaded.has(key)) deletes.add(key);
    } else {
      upserts.set(key, state);
    }
  }
  return { upserts, deletes };
}

/** Applies a batch to a table: one read of the touched rows, one upsert, one delete. */
export async function applyEvents(
  sql: SqlExecutor,
  projection: Projection,
  qualifiedTable: string,
  events: readonly RecordedEvent[],
): Promise<void> {
  const keys = new Set<string>();
  for (const event of events) for (const key of projection.keysOf(event)) keys.add(key);
  if (keys.size === 0) return;
  const loaded = await loadStates(sql, projection, qualifiedTable, [...keys]);
  const { upserts, deletes } = foldBatch(projection, loaded, events);
  await writeRows(sql, projection, qualifiedTable, upserts, deletes);
}
