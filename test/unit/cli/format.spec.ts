import { formatAudit } from '../../../src/cli/commands/audit-projection.command.js';
import { statusRow } from '../../../src/cli/commands/projection-status.command.js';
import { usageLines } from '../../../src/cli/help.js';
import { formatPosition, formatTable, toJson } from '../../../src/cli/format.js';

describe('CLI formatting', () => {
  it('prints bigint as decimal strings and positions as commit/prepare', () => {
    expect(toJson({ a: 1n, b: [2n], c: 'x' })).toBe('{"a":"1","b":["2"],"c":"x"}');
    expect(toJson(undefined)).toBe('undefined');
    expect(formatPosition({ commit: 9007199254740993n, prepare: 7n })).toBe('9007199254740993/7');
  });

  it('aligns table columns', () => {
    expect(
      formatTable([
        ['NAME', 'LAG'],
        ['stream-summaries', '≥100'],
      ]),
    ).toEqual(['NAME              LAG', 'stream-summaries  ≥100']);
  });

  it('marks a capped lag with ≥ and a stale live generation', () => {
    const generation = {
      generation: 3,
      version: 1,
      position: { commit: 100n, prepare: 5n },
      eventsProcessed: 40,
      lagEvents: 1000,
      lagEventsCapped: true,
      lagSeconds: 12.34,
    };
    expect(
      statusRow({
        name: 'p',
        version: 2,
        live: generation,
        building: { ...generation, generation: 4, version: 2, lagEvents: 7, lagEventsCapped: false },
        stale: true,
      }),
    ).toEqual(['p', 'v2', 'g3 v1', '100/5', '40', '≥1000', '12.3', 'g4 v2 lag 7', 'stale (rebuilding)']);
    expect(statusRow({ name: 'p', version: 1, live: null, building: null, stale: false })).toEqual([
      'p',
      'v1',
      '-',
      '-',
      '-',
      '-',
      '-',
      '-',
      'not built',
    ]);
  });

  it('reports audit differences one per line', () => {
    const position = { commit: 10n, prepare: 2n };
    expect(formatAudit({ projection: 'p', position, rowsCompared: 3, differences: [] })).toEqual([
      'no differences (3 rows compared at position 10/2)',
    ]);
    expect(
      formatAudit({
        projection: 'p',
        position,
        rowsCompared: 3,
        differences: [
          { id: 'a', kind: 'missing-in-live', fields: [] },
          { id: 'b', kind: 'missing-in-rebuild', fields: [] },
          { id: 'c', kind: 'differs', fields: [{ path: 'state.events', live: 99, rebuilt: 2 }] },
        ],
      }),
    ).toEqual([
      'a: missing in live',
      'b: missing in rebuild',
      'c: differs at state.events: live=99 rebuilt=2',
      '3 rows differ (3 rows compared at position 10/2)',
    ]);
  });

  it('lists every command in the usage, one line each', () => {
    const text = usageLines().join('\n');
    for (const name of [
      'help',
      'events:replay',
      'projections:status',
      'projections:rebuild',
      'projections:audit',
    ]) {
      expect(text.split('\n').filter((line) => line.trimStart().startsWith(`${name} `))).toHaveLength(1);
    }
  });
});
