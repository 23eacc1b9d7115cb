import type { Database } from '../../src/database/database.js';
import {
  comparePositions,
  type EventStore,
  type Position,
  START,
} from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import { applyEvents } from './apply-events.js';
import { readCheckpoint } from './projection-registry.js';
import { createProjectionTable, identifier } from './projection-table.js';

export interface RowDifference {
  readonly id: string;
  readonly kind: 'missing-in-live' | 'missing-in-rebuild' | 'differs';
  /** For `differs`: each differing path with the live and the rebuilt value. */
  readonly fields: readonly { path: string; live: unknown; rebuilt: unknown }[];
}

export interface AuditResult {
  readonly projection: string;
  readonly position: Position;
  readonly rowsCompared: number;
  readonly differences: readonly RowDifference[];
}

/**
 * Rebuilds a projection into a scratch schema up to exactly the live checkpoint and compares every row (state and
 * derived columns) with the live read model, under one read-only snapshot in which the live checkpoint stands where
 * the scratch copy does, so both sides reflect the same events. The scratch schema is dropped afterwards.
 */
export async function auditProjection(
  db: Database,
  store: EventStore,
  projection: Projection,
  options: { batchSize?: number; maxDifferences?: number } = {},
): Promise<AuditResult> {
  const { rows } = await db.query<{ live_generation: number | null }>(
    'SELECT live_generation FROM projections WHERE name = $1',
    [projection.name],
  );
  const generation = rows[0]?.live_generation;
  if (generation === null || generation === undefined) {
    throw new Error(`Projection ${projection.name} has no live generation to audit yet`);
  }
  const schema = identifier(`ferry_audit_${process.pid}_${Date.now()}`);
  const scratch = `${schema}.${identifier(projection.table)}`;
  await db.query(`CREATE SCHEMA ${schema}`);
  try {
    await createProjectionTable(db, projection, projection.table, schema);
    let built: Position = START;
    for (;;) {
      const target = (await readCheckpoint(db, projection.name, generation))?.position ?? START;
      built = await catchUpTo(db, store, projection, scratch, built, target, options.batchSize ?? 1000);
      // Compared under one snapshot, read-only: the live rows and their checkpoint are written in one transaction,
      // so the snapshot sees both at the same position. No row lock and no transaction id is taken, so the live
      // projection keeps being updated and catch-up readers are not held below the watermark meanwhile
      // (decision 0020); if the live checkpoint moved past the scratch copy, catch up and compare again.
      const result = await db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const checkpoint = await readCheckpoint(tx, projection.name, generation);
        if (!checkpoint)
          throw new Error(`Projection ${projection.name} generation ${generation} vanished during the audit`);
        if (comparePositions(checkpoint.position, target) !== 0) return null;
        const diff = await tx.query<{
          id: string;
          live: Record<string, unknown> | null;
          rebuilt: Record<string, unknown> | null;
        }>(
          `SELECT coalesce(l.id, s.id) AS id, to_jsonb(l) AS live, to_jsonb(s) AS rebuilt
             FROM ${identifier(projection.table)} l FULL OUTER JOIN ${scratch} s ON s.id = l.id
            WHERE to_jsonb(l) IS DISTINCT FROM to_jsonb(s)
            ORDER BY 1 LIMIT $1`,
          [options.maxDifferences ?? 1000],
        );
        const count = await tx.query<{ count: bigint }>(`SELECT count(*) AS count FROM ${scratch}`);
        return {
          projection: projection.name,
          position: target,
          rowsCompared: Number(count.rows[0].count),
          differences: diff.rows.map(describeDifference),
        };
      });
      if (result) return result;
    }
  } finally {
    await db.query(`DROP SCHEMA ${schema} CASCADE`);
  }
}

async function catchUpTo(
  db: Database,
  store: EventStore,
  projection: Projection,
  table: string,
  from: Position,
  target: Position,
  batchSize: number,
): Promise<Position> {
  let position = from;
  while (comparePositions(position, target) < 0) {
    const batch = await store.readAll({ from: position, maxCount: batchSize });
    const events = batch.events.filter((event) => comparePositions(event.position, target) <= 0);
    if (events.length > 0) await applyEvents(db, projection, table, events);
    if (events.length < batch.events.length || batch.events.length === 0) return target;
    position = events[events.length - 1].position;
  }
  return position;
}

function describeDifference(row: {
  id: string;
  live: Record<string, unknown> | null;
  rebuilt: Record<string, unknown> | null;
}): RowDifference {
  if (!row.live) return { id: row.id, kind: 'missing-in-live', fields: [] };
  if (!row.rebuilt) return { id: row.id, kind: 'missing-in-rebuild', fields: [] };
  return { id: row.id, kind: 'differs', fields: diffValues(row.live, row.rebuilt, '') };
}

/** Paths at which two JSON values differ, leaves first. */
export function diffValues(
  live: unknown,
  rebuilt: unknown,
  path: string,
): { path: string; live: unknown; rebuilt: unknown }[] {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isObject(live) && isObject(rebuilt)) {
    const keys = [...new Set([...Object.keys(live), ...Object.keys(rebuilt)])].sort();
    return keys.flatMap((key) => diffValues(live[key], rebuilt[key], path ? `${path}.${key}` : key));
  }
  if (Array.isArray(live) && Array.isArray(rebuilt) && live.length === rebuilt.length) {
    return live.flatMap((item, index) => diffValues(item, rebuilt[index], `${path}[${index}]`));
  }
  return JSON.stringify(live) === JSON.stringify(rebuilt) ? [] : [{ path, live, rebuilt }];
}
