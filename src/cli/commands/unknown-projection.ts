import type { Projection } from '../../../projections/projection.js';
import type { CliOutput } from '../output.js';

/** Says which projections exist; returns exit code 1. */
export function unknownProjection(
  name: string,
  projections: readonly Projection[],
  output: CliOutput,
): number {
  output.err(`Unknown projection "${name}". Known projections: ${projections.map((p) => p.name).join(', ')}`);
  return 1;
}
