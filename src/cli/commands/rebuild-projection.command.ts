import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import type { Projection } from '../../../projections/projection.js';
import { rebuildProjections } from '../../../projections/runner/rebuild.js';
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
 * `projections:rebuild <name> [<name> …]`: a blue/green rebuild (fresh generations filled from the start of the
 * log, indexed, then swapped in), with a progress bar on stderr and a summary line per projection on stdout. Several
 * names must share a fold (requests-v3 and requests-v2 do): the log is then read and folded once for all of them.
 * Returns the exit code: 0, or 1 for an unknown projection or names that cannot rebuild together.
 */
export async function rebuildProjectionCommand(
  deps: RebuildProjectionDeps,
  names: readonly string[],
  output: CliOutput,
): Promise<number> {
  const chosen: Projection[] = [];
  for (const name of names) {
    const projection = deps.projections.find((candidate) => candidate.name === name);
    if (!projection) return unknownProjection(name, deps.projections, output);
    if (!chosen.includes(projection)) chosen.push(projection);
  }
  if (
    chosen.length > 1 &&
    chosen.some((projection) => !projection.fold || projection.fold !== chosen[0].fold)
  ) {
    output.err(
      `${chosen.map((projection) => projection.name).join(', ')} do not share a fold; rebuild them one at a time`,
    );
    return 1;
  }
  const runner = new ProjectionRunner(deps.db, deps.store, {
    batchSize: deps.batchSize,
    pollIntervalMs: 100,
    rebuildOnVersionChange: true,
  });
  const label = chosen.map((projection) => projection.name).join(' + ');
  const progress = createProgressRenderer(output, { label: `rebuilding ${label}`, now: deps.now });
  let results;
  try {
    results = await rebuildProjections(runner, deps.store, chosen, {
      batchSize: deps.batchSize,
      onProgress: (update) => progress.update(update),
      now: deps.now,
    });
  } finally {
    progress.finish();
  }
  for (const [index, result] of results.entries()) {
    const rate = result.seconds > 0 ? result.events / result.seconds : 0;
    output.out(
      `rebuilt ${chosen[index].name} generation ${result.generation}: ${result.events} events in ` +
        `${result.seconds.toFixed(1)} s (${formatRate(rate)} events/s)`,
    );
  }
  return 0;
}
