import type { Database } from '../../src/database/database.js';
import type { EventStore, Position } from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import { readCheckpoint } from './projection-registry.js';

export interface GenerationStatus {
  readonly generation: number;
  readonly version: number;
  readonly position: Position;
  readonly eventsProcessed: number;
  /** Events readable after the checkpoint (at most `lagCap`; `lagEventsCapped` says when it is more). */
  readonly lagEvents: number;
  readonly lagEventsCapped: boolean;
  /** Age of the oldest event not yet applied; 0 when caught up. */
  readonly lagSeconds: number;
}

export interface ProjectionStatus {
  readonly name: string;
  readonly version: number;
  readonly live: GenerationStatus | null;
  readonly building: GenerationStatus | null;
  /** The live generation was built by another version of the code and is not being updated. */
  readonly stale: boolean;
}

/** Where a projection stands: live and building generations, their checkpoints and lag. */
export async function projectionStatus(
  db: Database,
  store: EventStore,
  projection: Projection,
  options: { now?: Date; lagCap?: number } = {},
): Promise<ProjectionStatus> {
  const { rows } = await db.query<{
    live_generation: number | null;
    live_version: number | null;
    building_generation: number | null;
    building_version: number | null;
  }>('SELECT * FROM projections WHERE name = $1', [projection.name]);
  const row = rows[0];
  const generation = async (gen: number | null, version: number | null): Promise<GenerationStatus | null> => {
    if (gen === null || version === null) return null;
    const checkpoint = await readCheckpoint(db, projection.name, gen);
    if (!checkpoint) return null;
    const lagCap = options.lagCap ?? 100_000;
    const lagEvents = await store.countAfter(checkpoint.position, lagCap);
    const next =
      lagEvents > 0 ? (await store.readAll({ from: checkpoint.position, maxCount: 1 })).events[0] : undefined;
    const now = options.now ?? new Date();
    return {
      generation: gen,
      version,
      position: checkpoint.position,
      eventsProcessed: Number(checkpoint.eventsProcessed),
      lagEvents,
      lagEventsCapped: lagEvents >= lagCap,
      lagSeconds: next ? Math.max(0, (now.getTime() - next.createdAt.getTime()) / 1000) : 0,
    };
  };
  const live = row ? await generation(row.live_generation, row.live_version) : null;
  return {
    name: projection.name,
    version: projection.version,
    live,
    building: row ? await generation(row.building_generation, row.building_version) : null,
    stale: live !== null && live.version !== projection.version,
  };
}
