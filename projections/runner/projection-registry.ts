import type { Database, SqlExecutor } from '../../src/database/database.js';
import { type Position, START } from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import {
  createProjectionIndexes,
  createProjectionTable,
  generationTable,
  identifier,
} from './projection-table.js';

export interface RegistryRow {
  readonly name: string;
  readonly liveGeneration: number | null;
  readonly liveVersion: number | null;
  readonly buildingGeneration: number | null;
  readonly buildingVersion: number | null;
}

export interface Checkpoint {
  readonly position: Position;
  readonly eventsProcessed: bigint;
  readonly lastEventAt: Date | null;
  readonly updatedAt: Date;
}

interface RegistryRecord {
  name: string;
  live_generation: number | null;
  live_version: number | null;
  building_generation: number | null;
  building_version: number | null;
  next_generation: number;
}

const toRow = (row: RegistryRecord): RegistryRow => ({
  name: row.name,
  liveGeneration: row.live_generation,
  liveVersion: row.live_version,
  buildingGeneration: row.building_generation,
  buildingVersion: row.building_version,
});

/** Which generation of each projection is live or being built, and each generation's checkpoint. */
export class ProjectionRegistry {
  constructor(private readonly db: Database) {}

  async ensure(projection: Projection): Promise<RegistryRow> {
    await this.db.query('INSERT INTO projections (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [
      projection.name,
    ]);
    return (await this.get(projection.name))!;
  }

  async get(name: string): Promise<RegistryRow | null> {
    const { rows } = await this.db.query<RegistryRecord>('SELECT * FROM projections WHERE name = $1', [name]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  async checkpoint(name: string, generation: number): Promise<Checkpoint | null> {
    return readCheckpoint(this.db, name, generation);
  }

  /**
   * Starts building a fresh generation of the projection's current version, unless one is already being built
   * (then that one is joined). `restart` discards a build in progress and starts over.
   */
  async startBuild(projection: Projection, options: { restart?: boolean } = {}): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<RegistryRecord>(
        'SELECT * FROM projections WHERE name = $1 FOR UPDATE',
        [projection.name],
      );
      const row = rows[0];
      if (!row) throw new Error(`Projection ${projection.name} is not registered`);
      if (row.building_generation !== null) {
        if (row.building_version === projection.version && !options.restart) return row.building_generation;
        await dropGeneration(tx, projection, row.building_generation);
      }
      const generation = row.next_generation;
      await createProjectionTable(tx, projection, generationTable(projection, generation));
      await tx.query('INSERT INTO projection_checkpoints (name, generation) VALUES ($1, $2)', [
        projection.name,
        generation,
      ]);
      await tx.query(
        `UPDATE projections SET building_generation = $2, building_version = $3, next_generation = $2 + 1,
                updated_at = now() WHERE name = $1`,
        [projection.name, generation, projection.version],
      );
      return generation;
    });
  }

  /**
   * Gets a caught-up generation ready to go live: creates its secondary indexes (a generation is built without
   * them) and refreshes its planner statistics. True when it already was ready, so it can be swapped in now; false
   * when indexes were just built (events may have arrived meanwhile: apply them first, then ask again) or another
   * session is still building one. On PostgreSQL the indexes are built `CONCURRENTLY`, so no transaction id is held
   * while they build and catch-up readers (other projections, webhooks, the solver) keep moving (decision 0020).
   */
  async readyToSwap(projection: Projection, generation: number): Promise<boolean> {
    const table = generationTable(projection, generation);
    const { created, pending } = await createProjectionIndexes(this.db, projection, table, undefined, {
      concurrently: this.db.kind === 'postgres',
    });
    if (pending > 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return false;
    }
    if (created === 0) return true;
    await this.db.query(`ANALYZE ${table}`);
    return false;
  }

  /** Makes a built generation live: the view now points at it, and the previous generation is dropped. */
  async swap(projection: Projection, generation: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<RegistryRecord>(
        'SELECT * FROM projections WHERE name = $1 FOR UPDATE',
        [projection.name],
      );
      const row = rows[0];
      if (!row || row.building_generation !== generation) return false;
      const view = identifier(projection.table);
      await tx.query(`DROP VIEW IF EXISTS ${view}`);
      await tx.query(`CREATE VIEW ${view} AS SELECT * FROM ${generationTable(projection, generation)}`);
      await tx.query(
        `UPDATE projections SET live_generation = building_generation, live_version = building_version,
                building_generation = NULL, building_version = NULL, updated_at = now() WHERE name = $1`,
        [projection.name],
      );
      if (row.live_generation !== null) await dropGeneration(tx, projection, row.live_generation);
      return true;
    });
  }
}

export async function readCheckpoint(
  sql: SqlExecutor,
  name: string,
  generation: number,
): Promise<Checkpoint | null> {
  const { rows } = await sql.query<{
    commit_position: bigint;
    prepare_position: bigint;
    events_processed: bigint;
    last_event_at: Date | null;
    updated_at: Date;
  }>(
    `SELECT commit_position, prepare_position, events_processed, last_event_at, updated_at
       FROM projection_checkpoints WHERE name = $1 AND generation = $2`,
    [name, generation],
  );
  const row = rows[0];
  if (!row) return null;
  const position =
    row.commit_position === 0n && row.prepare_position === 0n
      ? START
      : {
          commit: row.commit_position,
          prepare: row.prepare_position,
        };
  return {
    position,
    eventsProcessed: row.events_processed,
    lastEventAt: row.last_event_at,
    updatedAt: row.updated_at,
  };
}

async function dropGeneration(tx: SqlExecutor, projection: Projection, generation: number): Promise<void> {
  await tx.query(`DROP TABLE IF EXISTS ${generationTable(projection, generation)}`);
  await tx.query('DELETE FROM projection_checkpoints WHERE name = $1 AND generation = $2', [
    projection.name,
    generation,
  ]);
}
