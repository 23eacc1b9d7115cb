import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import type { Projection } from '../../../projections/projection.js';
import { type AuditResult, auditProjection } from '../../../projections/runner/audit.js';
import { formatPosition, toJson } from '../format.js';
import type { CliOutput } from '../output.js';
import { unknownProjection } from './unknown-projection.js';

/** Exit code when the audit found differences. */
export const AUDIT_DIFFERENCES_EXIT_CODE = 2;

export interface AuditProjectionDeps {
  readonly db: Database;
  readonly store: EventStore;
  readonly projections: readonly Projection[];
  readonly batchSize?: number;
  /** Stop listing after this many differing rows (1000). */
  readonly maxDifferences?: number;
}

/**
 * `projections:audit <name>`: rebuilds the projection aside up to the live checkpoint and compares every row.
 * Returns the exit code: 0 without differences, 2 with some, 1 for an unknown projection.
 */
export async function auditProjectionCommand(
  deps: AuditProjectionDeps,
  name: string,
  output: CliOutput,
): Promise<number> {
  const projection = deps.projections.find((candidate) => candidate.name === name);
  if (!projection) return unknownProjection(name, deps.projections, output);
  const maxDifferences = deps.maxDifferences ?? 1000;
  const result = await auditProjection(deps.db, deps.store, projection, {
    batchSize: deps.batchSize,
    maxDifferences,
  });
  for (const line of formatAudit(result, maxDifferences)) output.out(line);
  return result.differences.length === 0 ? 0 : AUDIT_DIFFERENCES_EXIT_CODE;
}

/** Pure: the report lines of an audit. */
export function formatAudit(result: AuditResult, maxDifferences = Number.POSITIVE_INFINITY): string[] {
  const compared = `${result.rowsCompared} rows compared at position ${formatPosition(result.position)}`;
  if (result.differences.length === 0) return [`no differences (${compared})`];
  const lines: string[] = [];
  for (const difference of result.differences) {
    if (difference.kind === 'missing-in-live') lines.push(`${difference.id}: missing in live`);
    else if (difference.kind === 'missing-in-rebuild') lines.push(`${difference.id}: missing in rebuild`);
    else if (difference.fields.length === 0) lines.push(`${difference.id}: differs`);
    else {
      for (const field of difference.fields) {
        lines.push(
          `${difference.id}: differs at ${field.path || '(row)'}: live=${toJson(field.live)} ` +
            `rebuilt=${toJson(field.rebuilt)}`,
        );
      }
    }
  }
  const rows = result.differences.length;
  const capped = rows >= maxDifferences ? ' (listing stopped there)' : '';
  lines.push(`${rows} row${rows === 1 ? '' : 's'} differ${rows === 1 ? 's' : ''}${capped} (${compared})`);
  return lines;
}
