import type { Database, SqlExecutor } from '../../src/database/database.js';
import { followUntilAborted } from '../../src/common/follow-loop.js';
import type { EventStore, RecordedEvent } from '../../src/event-store/event-store.js';
import { inRemoteChildSpans, tracingEnabled } from '../../src/telemetry/tracing.js';
import type { Projection } from '../projection.js';
import { applyEvents } from './apply-events.js';
import { type BatchResult, processCheckpointedBatch } from './checkpointed-batch.js';
import { ProjectionRegistry, type RegistryRow } from './projection-registry.js';
import { projectionSpans } from './projection-spans.js';
import { generationTable } from './projection-table.js';
import { processSharedFold, type SharedFoldMember } from './shared-fold-batch.js';

/** Batches per round of a shared-fold build, so that a round ends (and `stop()` is heard) within seconds. */
const FOLD_BATCHES_PER_ROUND = 10;

export interface RunnerOptions {
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  /** Build a fresh generation when the stored version differs from the code's. */
  readonly rebuildOnVersionChange: boolean;
  readonly onError?: (projection: Projection, error: unknown) => void;
}

export type { BatchResult };

/**
 * Keeps projections up to date from the global log. Each batch: read events after the checkpoint, then in one
 * transaction lock the checkpoint row (`FOR UPDATE SKIP LOCKED`), check it has not moved, apply the batch with
 * set-based writes and advance the checkpoint. Instances running side by side each skip a locked or moved
 * checkpoint, so every event is applied exactly once per generation.
 */
export class ProjectionRunner {
  readonly registry: ProjectionRegistry;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    readonly db: Database,
    private readonly store: EventStore,
    private readonly options: RunnerOptions,
  ) {
    this.registry = new ProjectionRegistry(db);
  }

  /**
   * Reads and applies one batch to one generation of a projection. `traced`: each applied event appended in a trace
   * gets a span in it (projection-spans.ts); the live generation's batches only, as a rebuild replays history.
   */
  processBatch(
    projection: Projection,
    generation: number,
    batchSize = this.options.batchSize,
    traced = false,
  ): Promise<BatchResult> {
    const table = generationTable(projection, generation);
    const apply = (tx: SqlExecutor, events: readonly RecordedEvent[]) =>
      applyEvents(tx, projection, table, events);
    return processCheckpointedBatch(
      this.db,
      this.store,
      { name: projection.name, generation, batchSize },
      traced && tracingEnabled()
        ? (tx, events) =>
            inRemoteChildSpans(projectionSpans(projection, generation, events), () => apply(tx, events))
        : apply,
    );
  }

  /**
   * Makes sure the projection has a generation of its current version: the first start builds one; a version
   * change builds a new one beside the live one (when allowed).
   */
  async prepare(projection: Projection): Promise<void> {
    const row = await this.registry.ensure(projection);
    const liveIsCurrent = row.liveVersion === projection.version;
    const buildingIsCurrent = row.buildingVersion === projection.version;
    if (liveIsCurrent || buildingIsCurrent) return;
    if (row.liveGeneration === null || this.options.rebuildOnVersionChange) {
      await this.registry.startBuild(projection);
    }
  }

  /**
   * One round for a projection: a batch on the generation being built (indexing it, then swapping it in, once caught
   * up) and one on the live one. Returns a count of work done (0: nothing to do).
   */
  async tick(projection: Projection): Promise<number> {
    const row = await this.registry.get(projection.name);
    if (!row) return 0;
    return (await this.buildingRound(projection, row)) + (await this.liveRound(projection, row));
  }

  /** A batch on the projection's live generation, when it is of the code's version. */
  async tickLive(projection: Projection): Promise<number> {
    const row = await this.registry.get(projection.name);
    return row ? this.liveRound(projection, row) : 0;
  }

  /** A batch on the generation being built; indexes it and swaps it in once it has caught up. */
  private async buildingRound(projection: Projection, row: RegistryRow): Promise<number> {
    if (row.buildingGeneration === null || row.buildingVersion !== projection.version) return 0;
    const result = await this.processBatch(projection, row.buildingGeneration);
    if (!result.caughtUp || result.contended) return result.processed;
    // Indexing and swapping count as work done, so the next round comes at once.
    if (await this.registry.readyToSwap(projection, row.buildingGeneration)) {
      await this.registry.swap(projection, row.buildingGeneration);
    }
    return result.processed + 1;
  }

  private async liveRound(projection: Projection, row: RegistryRow): Promise<number> {
    if (row.liveGeneration === null || row.liveVersion !== projection.version) return 0;
    // Live batches open trace spans (as children of their events' appends); rebuilds never do.
    return (await this.processBatch(projection, row.liveGeneration, this.options.batchSize, true)).processed;
  }

  /**
   * A round of the generations being built of projections that share a fold (`Projection.fold`): read and folded
   * once for all of them (`processSharedFold`, as `rebuildProjections` does), then indexed and swapped in together.
   * A start-up rebuild after a version change of requests-v3 and requests-v2 takes this path.
   */
  async tickFold(projections: readonly Projection[]): Promise<number> {
    const members: SharedFoldMember[] = [];
    let alone: { projection: Projection; row: RegistryRow } | null = null;
    for (const projection of projections) {
      const row = await this.registry.get(projection.name);
      if (row && row.buildingGeneration !== null && row.buildingVersion === projection.version) {
        members.push({ projection, generation: row.buildingGeneration });
        alone = { projection, row };
      }
    }
    if (members.length === 0) return 0;
    if (members.length === 1) return this.buildingRound(alone!.projection, alone!.row);
    const result = await processSharedFold(
      this.db,
      this.store,
      members,
      this.options.batchSize,
      (member) => this.processBatch(member.projection, member.generation),
      undefined,
      FOLD_BATCHES_PER_ROUND,
    );
    if (!result.caughtUp || result.contended) return result.processed;
    let ready = true;
    for (const member of members) {
      if (!(await this.registry.readyToSwap(member.projection, member.generation))) ready = false;
    }
    if (ready) {
      for (const member of members) await this.registry.swap(member.projection, member.generation);
    }
    return result.processed + 1;
  }

  /**
   * Prepares and then follows every projection until stop(). Projections that share a fold have their live
   * generations followed one by one and the generations being built together (`tickFold`).
   */
  async start(projections: readonly Projection[]): Promise<void> {
    for (const projection of projections) await this.prepare(projection);
    const folds = new Map<string, Projection[]>();
    for (const projection of projections) {
      if (projection.fold) folds.set(projection.fold, [...(folds.get(projection.fold) ?? []), projection]);
    }
    const shared = [...folds.values()].filter((members) => members.length > 1);
    const together = new Set(shared.flat());
    this.loops = [
      ...projections.map((projection) =>
        together.has(projection)
          ? this.follow(projection, () => this.tickLive(projection))
          : this.follow(projection, () => this.tick(projection)),
      ),
      ...shared.map((members) => this.follow(members[0], () => this.tickFold(members))),
    ];
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private follow(projection: Projection, round: () => Promise<number>): Promise<void> {
    const signal = this.abort.signal;
    return followUntilAborted(
      signal,
      async () => (await round()) > 0,
      () => this.store.waitForAppend(this.options.pollIntervalMs, signal),
      (error) => this.options.onError?.(projection, error),
    );
  }
}
