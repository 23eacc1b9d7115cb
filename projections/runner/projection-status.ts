import type { Database } from '../../src/database/database.js';
import {
  comparePositions,
  type EventStore,
  type Position,
  START,
} from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';

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
  options: StatusOptions = {},
): Promise<ProjectionStatus> {
  const [status] = await projectionStatuses(db, store, [projection], options);
  return status;
}

export interface StatusOptions {
  readonly now?: Date;
  /** Lag is counted up to this many events (default 100,000). */
  readonly lagCap?: number;
}

interface GenerationRow {
  readonly name: string;
  readonly live_generation: number | null;
  readonly live_version: number | null;
  readonly building_generation: number | null;
  readonly building_version: number | null;
  readonly generation: number | null;
  readonly commit_position: bigint | null;
  readonly prepare_position: bigint | null;
  readonly events_processed: bigint | null;
}

/**
 * Where each projection stands, in the order given, in a fixed number of statements whatever their number: one
 * read of the registry joined to the checkpoints, one of the log's head, and, only for a checkpoint behind the head,
 * a count and the oldest event not applied (once per distinct position). The health probe and `/metrics` read every
 * projection each round; caught up, that is two statements instead of four per projection.
 */
export async function projectionStatuses(
  db: Database,
  store: EventStore,
  projections: readonly Projection[],
  options: StatusOptions = {},
): Promise<ProjectionStatus[]> {
  const { rows } = await db.query<GenerationRow>(
    `SELECT p.name, p.live_generation, p.live_version, p.building_generation, p.building_version,
            c.generation, c.commit_position, c.prepare_position, c.events_processed
       FROM projections p
       LEFT JOIN projection_checkpoints c
         ON c.name = p.name AND c.generation IN (p.live_generation, p.building_generation)
      WHERE p.name = ANY($1::text[])`,
    [projections.map((projection) => projection.name)],
  );
  const head = await store.headPosition();
  const lagCap = options.lagCap ?? 100_000;
  const now = options.now ?? new Date();
  const lags = new Map<string, Promise<{ events: number; seconds: number }>>();
  const lagAfter = (position: Position) => {
    const key = `${position.commit}:${position.prepare}`;
    let lag = lags.get(key);
    if (!lag) {
      lag =
        comparePositions(position, head) >= 0
          ? Promise.resolve({ events: 0, seconds: 0 })
          : countLag(position);
      lags.set(key, lag);
    }
    return lag;
  };
  const countLag = async (position: Position) => {
    const events = await store.countAfter(position, lagCap);
    const next = events > 0 ? (await store.readAll({ from: position, maxCount: 1 })).events[0] : undefined;
    return { events, seconds: next ? Math.max(0, (now.getTime() - next.createdAt.getTime()) / 1000) : 0 };
  };
  const generation = async (
    name: string,
    gen: number | null,
    version: number | null,
  ): Promise<GenerationStatus | null> => {
    if (gen === null || version === null) return null;
    const checkpoint = rows.find((row) => row.name === name && row.generation === gen);
    if (!checkpoint) return null;
    const position = positionOf(checkpoint);
    const lag = await lagAfter(position);
    return {
      generation: gen,
      version,
      position,
      eventsProcessed: Number(checkpoint.events_processed),
      lagEvents: lag.events,
      lagEventsCapped: lag.events >= lagCap,
      lagSeconds: lag.seconds,
    };
  };
  return Promise.all(
    projections.map(async (projection) => {
      const row = rows.find((candidate) => candidate.name === projection.name);
      const live = row ? await generation(projection.name, row.live_generation, row.live_version) : null;
      return {
        name: projection.name,
        version: projection.version,
        live,
        building: row
          ? await generation(projection.name, row.building_generation, row.building_version)
          : null,
        stale: live !== null && live.version !== projection.version,
      };
    }),
  );
}

/** A checkpoint's position; zeros are the start of the log. */
function positionOf(row: GenerationRow): Position {
  const commit = BigInt(row.commit_position ?? 0n);
  const prepare = BigInt(row.prepare_position ?? 0n);
  return commit === 0n && prepare === 0n ? START : { commit, prepare };
}
