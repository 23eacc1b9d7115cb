import type { EventStore } from '../../src/event-store/event-store.js';
import { START } from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';
import type { ProjectionRunner } from './projection-runner.js';

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

/**
 * Rebuilds a projection blue/green: a fresh generation is filled from the start of the log while readers keep
 * using the live one, then swapped in atomically once it has caught up.
 */
export async function rebuildProjection(
  runner: ProjectionRunner,
  store: EventStore,
  projection: Projection,
  options: { batchSize?: number; onProgress?: (progress: RebuildProgress) => void; now?: () => number } = {},
): Promise<RebuildResult> {
  const now = options.now ?? (() => performance.now());
  await runner.registry.ensure(projection);
  const generation = await runner.registry.startBuild(projection, { restart: true });
  const total = await store.countAfter(START, Number.MAX_SAFE_INTEGER);
  const started = now();
  let done = 0;
  for (;;) {
    const result = await runner.processBatch(projection, generation, options.batchSize);
    done += result.processed;
    const seconds = (now() - started) / 1000;
    options.onProgress?.({
      done,
      total: Math.max(total, done),
      eventsPerSecond: seconds > 0 ? done / seconds : 0,
    });
    if (result.caughtUp && !result.contended) {
      if (await runner.registry.swap(projection, generation)) break;
      throw new Error(
        `Rebuild of ${projection.name} was replaced by another rebuild before it could be swapped in`,
      );
    }
    if (result.contended) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { generation, events: done, seconds: (now() - started) / 1000 };
}
