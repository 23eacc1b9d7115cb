import type { Database, SqlExecutor } from '../../src/database/database.js';
import { followUntilAborted } from '../../src/common/follow-loop.js';
import type { EventStore, RecordedEvent } from '../../src/event-store/event-store.js';
import { inRemoteChildSpans, tracingEnabled } from '../../src/telemetry/tracing.js';
import type { Projection } from '../projection.js';
import { applyEvents } from './apply-events.js';
import { type BatchResult, processCheckpointedBatch } from './checkpointed-batch.js';
import { ProjectionRegistry } from './projection-registry.js';
import { projectionSpans } from './projection-spans.js';
import { generationTable } from './projection-table.js';

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
    let processed = 0;
    if (row.buildingGeneration !== null && row.buildingVersion === projection.version) {
      const result = await this.processBatch(projection, row.buildingGeneration);
      processed += result.processed;
      if (result.caughtUp && !result.contended) {
        // Indexing and swapping count as work done, so the next round comes at once.
        if (await this.registry.readyToSwap(projection, row.buildingGeneration)) {
          await this.registry.swap(projection, row.buildingGeneration);
        }
        processed += 1;
      }
    }
    if (row.liveGeneration !== null && row.liveVersion === projection.version) {
      processed += (await this.processBatch(projection, row.liveGeneration, this.options.batchSize, true))
        .processed;
    }
    return processed;
  }

  /** Prepares and then follows every projection until stop(). */
  async start(projections: readonly Projection[]): Promise<void> {
    for (const projection of projections) await this.prepare(projection);
    this.loops = projections.map((projection) => this.follow(projection));
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private follow(projection: Projection): Promise<void> {
    const signal = this.abort.signal;
    return followUntilAborted(
      signal,
      async () => (await this.tick(projection)) > 0,
      () => this.store.waitForAppend(this.options.pollIntervalMs, signal),
      (error) => this.options.onError?.(projection, error),
    );
  }
}
