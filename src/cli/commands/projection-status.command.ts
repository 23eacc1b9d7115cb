import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import type { Projection } from '../../../projections/projection.js';
import {
  type GenerationStatus,
  type ProjectionStatus,
  projectionStatus,
} from '../../../projections/runner/projection-status.js';
import { formatPosition, formatTable } from '../format.js';
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
 * being built if any, and whether the live generation is stale. Returns the exit code (0).
 */
export async function projectionStatusCommand(
  deps: {
    readonly db: Database;
    readonly store: EventStore;
    readonly projections: readonly Projection[];
    readonly now?: Date;
  },
  output: CliOutput,
): Promise<number> {
  const rows: string[][] = [HEADER];
  for (const projection of deps.projections) {
    rows.push(statusRow(await projectionStatus(deps.db, deps.store, projection, { now: deps.now })));
  }
  for (const line of formatTable(rows)) output.out(line);
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
