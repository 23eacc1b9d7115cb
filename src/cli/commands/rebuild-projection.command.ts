import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import type { Projection } from '../../../projections/projection.js';
import { rebuildProjection } from '../../../projections/runner/rebuild.js';
import { ProjectionRunner } from '../../../projections/runner/projection-runner.js';
import { formatRate, createProgressRenderer } from '../progress-bar.js';
import type { CliOutput } from '../output.js';
import { unknownProjection } from './unknown-projection.js';

export interface RebuildProjectionDeps {
  readonly db: Database;
  readonly store: EventStore;
  readonly projections: readonly Projection[];
  /** Events per batch (the configured `projections.batchSize`). */
  readonly batchSize: number;
  /** Milliseconds, monotonic (tests pin the clock). */
  readonly now?: () => number;
}

/**
 * `projections:rebuild <name>`: a blue/green rebuild (a fresh generation filled from the start of the log, then
 * swapped in), with a progress bar on stderr and a summary line on stdout. Returns the exit code: 0, or 1 for
 * an unknown projection.
 */
export async function rebuildProjectionCommand(
  deps: RebuildProjectionDeps,
  name: string,
  output: CliOutput,
): Promise<number> {
  const projection = deps.projections.find((candidate) => candidate.name === name);
  if (!projection) return unknownProjection(name, deps.projections, output);
  const runner = new ProjectionRunner(deps.db, deps.store, {
    batchSize: deps.batchSize,
    pollIntervalMs: 100,
    rebuildOnVersionChange: true,
  });
  const progress = createProgressRenderer(output, { label: `rebuilding ${name}`, now: deps.now });
  let result;
  try {
    result = await rebuildProjection(runner, deps.store, projection, {
      batchSize: deps.batchSize,
      onProgress: (update) => progress.update(update),
      now: deps.now,
    });
  } finally {
    progress.finish();
  }
  const rate = result.seconds > 0 ? result.events / result.seconds : 0;
  output.out(
    `rebuilt ${name} generation ${result.generation}: ${result.events} events in ` +
      `${result.seconds.toFixed(1)} s (${formatRate(rate)} events/s)`,
  );
  return 0;
}
