import type { EventStore } from '../../src/event-store/event-store.js';
import { START } from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import type { ProjectionRunner } from './projection-runner.js';
import { processSharedFold } from './shared-fold-batch.js';

export interface RebuildProgress {
  readonly done: number;
  readonly total: number;
  readonly eventsPerSecond: number;
}

export interface RebuildResult {
  readonly generation: number;
  readonly events: number;
  readonly seconds: number;
}

export interface RebuildOptions {
  readonly batchSize?: number;
  readonly onProgress?: (progress: RebuildProgress) => void;
  readonly now?: () => number;
}

/**
 * Rebuilds a projection blue/green: a fresh generation is filled from the start of the log while readers keep
 * using the live one, indexed once it has caught up, then swapped in atomically.
 */
export async function rebuildProjection(
  runner: ProjectionRunner,
  store: EventStore,
  projection: Projection,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  return (await rebuildProjections(runner, store, [projection], options))[0];
}

/**
 * Rebuilds several projections that share a fold (`Projection.fold`) together: each gets a fresh generation, and
 * every batch is read and folded once and written to all of them (`processSharedFoldBatch`). Once caught up each is
 * indexed, the tail that arrived meanwhile applied, and all are swapped in. Returns one result per projection.
 */
export async function rebuildProjections(
  runner: ProjectionRunner,
  store: EventStore,
  projections: readonly Projection[],
  options: RebuildOptions = {},
): Promise<RebuildResult[]> {
  const [first] = projections;
  if (!first) return [];
  if (
    projections.length > 1 &&
    projections.some(
      (projection) => !projection.fold || projection.fold !== first.fold || projection.codec !== first.codec,
    )
  ) {
    throw new Error(
      `Only projections that share a fold rebuild together (${projections.map((p) => `${p.name}: ${p.fold ?? 'none'}`).join(', ')})`,
    );
  }
  const now = options.now ?? (() => performance.now());
  const members = [];
  for (const projection of projections) {
    await runner.registry.ensure(projection);
    members.push({ projection, generation: await runner.registry.startBuild(projection, { restart: true }) });
  }
  const total = await store.countAfter(START, Number.MAX_SAFE_INTEGER);
  const batchSize = options.batchSize ?? 1000;
  const started = now();
  let done = 0;
  const report = (processed: number) => {
    done += processed;
    const seconds = (now() - started) / 1000;
    options.onProgress?.({
      done,
      total: Math.max(total, done),
      eventsPerSecond: seconds > 0 ? done / seconds : 0,
    });
  };
  for (;;) {
    let result;
    if (members.length === 1) {
      result = await runner.processBatch(first, members[0].generation, batchSize);
      report(result.processed);
    } else {
      result = await processSharedFold(
        runner.db,
        store,
        members,
        batchSize,
        (member) => runner.processBatch(member.projection, member.generation, batchSize),
        report,
      );
    }
    if (result.contended) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      continue;
    }
    if (!result.caughtUp) continue;
    // Index every member; if any had to be indexed, apply what arrived meanwhile before swapping.
    let ready = true;
    for (const member of members) {
      if (!(await runner.registry.readyToSwap(member.projection, member.generation))) ready = false;
    }
    if (!ready) continue;
    for (const member of members) {
      if (!(await runner.registry.swap(member.projection, member.generation))) {
        throw new Error(
          `Rebuild of ${member.projection.name} was replaced by another rebuild before it could be swapped in`,
        );
      }
    }
    break;
  }
  const seconds = (now() - started) / 1000;
  return members.map((member) => ({ generation: member.generation, events: done, seconds }));
}
