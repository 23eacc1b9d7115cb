import type { Database } from '../../src/database/database.js';
import { followUntilAborted, followWakeable } from '../../src/common/follow-loop.js';
import type { EventStore } from '../../src/event-store/event-store.js';
import { inRemoteChildSpans, tracingEnabled } from '../../src/telemetry/tracing.js';
import type { Projection } from '../projection.js';
import { applyEvents } from './apply-events.js';
import type { ApplyToGeneration } from './live-batch.js';
import { LiveFollower } from './live-follower.js';
import { type BatchResult, processCheckpointedBatch } from './checkpointed-batch.js';
import { ProjectionRegistry, type RegistryRow } from './projection-registry.js';
import { projectionSpans } from './projection-spans.js';
import { generationTable } from './projection-table.js';
import { processSharedFold, type SharedFoldMember } from './shared-fold-batch.js';

/**
 * The live follower reads the registry and the checkpoints again at least this often (ms), for what another process
 * changed: a swap, a checkpoint moved by another instance. Either is also noticed by the next batch that meets it.
 */
const REGISTRY_REFRESH_MS = 1_000;

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
 * checkpoint, so every event is applied exactly once per generation. Once started, the live generations share one
 * reader of the log and one transaction per batch (`LiveFollower`, `applyLiveBatch`).
 */
export class ProjectionRunner {
  readonly registry: ProjectionRegistry;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private live: LiveFollower | null = null;

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
    const apply = this.applier(traced);
    return processCheckpointedBatch(
      this.db,
      this.store,
      { name: projection.name, generation, batchSize },
      (tx, events) => apply(tx, { projection, generation }, events),
    );
  }

  /** Applies events to a generation's table; `traced` as in `processBatch`. */
  private applier(traced: boolean): ApplyToGeneration {
    const apply: ApplyToGeneration = (tx, { projection, generation }, events) =>
      applyEvents(tx, projection, generationTable(projection, generation), events);
    return (tx, target, events) =>
      traced && tracingEnabled()
        ? inRemoteChildSpans(projectionSpans(target.projection, target.generation, events), () =>
            apply(tx, target, events),
          )
        : apply(tx, target, events);
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

  /** A batch on the generation being built; indexes it and swaps it in once it has caught up. */
  private async buildingRound(projection: Projection, row: RegistryRow): Promise<number> {
    if (row.buildingGeneration === null || row.buildingVersion !== projection.version) return 0;
    const result = await this.processBatch(projection, row.buildingGeneration);
    if (!result.caughtUp || result.contended) return result.processed;
    // Indexing and swapping count as work done, so the next round comes at once.
    if (await this.registry.readyToSwap(projection, row.buildingGeneration)) {
      await this.registry.swap(projection, row.buildingGeneration);
      this.live?.invalidate();
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
    return (await this.foldRound(projections)) ?? 0;
  }

  /** `tickFold`, or null when none of them has a generation of its version being built. */
  private async foldRound(projections: readonly Projection[]): Promise<number | null> {
    const members: SharedFoldMember[] = [];
    let alone: { projection: Projection; row: RegistryRow } | null = null;
    for (const projection of projections) {
      const row = await this.registry.get(projection.name);
      if (row && row.buildingGeneration !== null && row.buildingVersion === projection.version) {
        members.push({ projection, generation: row.buildingGeneration });
        alone = { projection, row };
      }
    }
    if (members.length === 0) return null;
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
      this.live?.invalidate();
    }
    return result.processed + 1;
  }

  /**
   * Prepares and then follows every projection until stop(): their live generations with one reader of the log
   * (`LiveFollower`), and each generation being built at start-up in a loop of its own until it is swapped in;
   * projections that share a fold build together (`tickFold`).
   */
  async start(projections: readonly Projection[]): Promise<void> {
    for (const projection of projections) await this.prepare(projection);
    this.live = new LiveFollower(this.db, this.store, projections, {
      batchSize: this.options.batchSize,
      refreshMs: REGISTRY_REFRESH_MS,
      retryMs: this.options.pollIntervalMs,
      apply: this.applier(true),
      onError: (projection, error) => this.options.onError?.(projection, error),
    });
    const folds = new Map<string, Projection[]>();
    for (const projection of projections) {
      const fold = projection.fold ?? projection.name;
      folds.set(fold, [...(folds.get(fold) ?? []), projection]);
    }
    const builds: Promise<void>[] = [];
    for (const members of folds.values()) {
      const building = await Promise.all(members.map((member) => this.isBuilding(member)));
      if (!building.includes(true)) continue;
      builds.push(
        members.length > 1
          ? this.followBuild(members[0], () => this.foldRound(members))
          : this.followBuild(members[0], () => this.buildRound(members[0])),
      );
    }
    this.loops = [this.followLive(this.live, projections), ...builds];
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private async isBuilding(projection: Projection): Promise<boolean> {
    const row = await this.registry.get(projection.name);
    return row?.buildingGeneration !== null && row?.buildingVersion === projection.version;
  }

  /** `buildingRound`, or null once nothing of the projection's version is being built. */
  private async buildRound(projection: Projection): Promise<number | null> {
    const row = await this.registry.get(projection.name);
    if (!row || row.buildingGeneration === null || row.buildingVersion !== projection.version) return null;
    return this.buildingRound(projection, row);
  }

  /**
   * Rounds of the live follower, again at once while it finds work, else when this process appends (a wake-up
   * during a round is kept, and the ones that come while a round runs make one) or after the poll interval.
   */
  private followLive(live: LiveFollower, projections: readonly Projection[]): Promise<void> {
    const signal = this.abort.signal;
    return followWakeable(
      signal,
      async () => (await live.round()) > 0,
      { wait: (ms) => this.store.waitForAppend(ms, signal), pollIntervalMs: this.options.pollIntervalMs },
      (error) => {
        for (const projection of projections) this.options.onError?.(projection, error);
      },
    );
  }

  /** Rounds of a build until `round` says nothing is being built any more (it was swapped in). */
  private async followBuild(projection: Projection, round: () => Promise<number | null>): Promise<void> {
    const built = new AbortController();
    const stop = () => built.abort();
    this.abort.signal.addEventListener('abort', stop, { once: true });
    try {
      await followUntilAborted(
        built.signal,
        async () => {
          const work = await round();
          if (work === null) built.abort();
          return (work ?? 0) > 0;
        },
        () => this.store.waitForAppend(this.options.pollIntervalMs, built.signal),
        (error) => this.options.onError?.(projection, error),
      );
    } finally {
      this.abort.signal.removeEventListener('abort', stop);
    }
  }
}
