import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import type { Projection } from '../../../projections/projection.js';
import {
  type GenerationStatus,
  type ProjectionStatus,
  projectionStatus,
} from '../../../projections/runner/projection-status.js';
import { formatPosition, formatTable, toJson } from '../format.js';
import type { CliOutput } from '../output.js';

const HEADER = [
  'PROJECTION',
  'CODE',
  'LIVE',
  'CHECKPOINT',
  'PROCESSED',
  'LAG EVENTS',
  'LAG S',
  'BUILDING',
  'STATE',
];

/**
 * `projections:status`: one row per registered projection: code version, live generation and version, its
 * checkpoint (commit/prepare), events processed, lag (events, "≥" when capped, and seconds), the generation
 * being built if any, and whether the live generation is stale. With `json`, the same as a JSON array (positions
 * and counts as numbers or decimal strings). Returns the exit code (0).
 */
export async function projectionStatusCommand(
  deps: {
    readonly db: Database;
    readonly store: EventStore;
    readonly projections: readonly Projection[];
    readonly now?: Date;
  },
  output: CliOutput,
  options: { readonly json?: boolean } = {},
): Promise<number> {
  const statuses: ProjectionStatus[] = [];
  for (const projection of deps.projections) {
    statuses.push(await projectionStatus(deps.db, deps.store, projection, { now: deps.now }));
  }
  if (options.json) {
    output.out(
      toJson(
        statuses.map((status) => ({ ...status, state: stateOf(status) })),
        2,
      ),
    );
    return 0;
  }
  for (const line of formatTable([HEADER, ...statuses.map(statusRow)])) output.out(line);
  return 0;
}

/** Pure: the table cells of one projection's status. */
export function statusRow(status: ProjectionStatus): string[] {
  const { live, building } = status;
  return [
    status.name,
    `v${status.version}`,
    live ? `g${live.generation} v${live.version}` : '-',
    live ? formatPosition(live.position) : '-',
    live ? String(live.eventsProcessed) : '-',
    live ? formatLagEvents(live) : '-',
    live ? live.lagSeconds.toFixed(1) : '-',
    building ? `g${building.generation} v${building.version} lag ${formatLagEvents(building)}` : '-',
    stateOf(status),
  ];
}

function formatLagEvents(generation: GenerationStatus): string {
  return `${generation.lagEventsCapped ? '≥' : ''}${generation.lagEvents}`;
}

function stateOf(status: ProjectionStatus): string {
  if (status.stale) return status.building ? 'stale (rebuilding)' : 'stale';
  if (!status.live) return status.building ? 'building' : 'not built';
  return status.live.lagEvents === 0 ? 'up to date' : 'catching up';
}
