import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { projections } from '../../../projections/index.js';
import { ProjectionRunner } from '../../../projections/runner/projection-runner.js';
import { auditProjectionCommand } from '../../../src/cli/commands/audit-projection.command.js';
import { projectionStatusCommand } from '../../../src/cli/commands/projection-status.command.js';
import { rebuildProjectionCommand } from '../../../src/cli/commands/rebuild-projection.command.js';
import { replayStream } from '../../../src/cli/commands/replay-stream.command.js';
import { captureOutput } from '../../../src/cli/output.js';
import type { Database } from '../../../src/database/database.js';
import type { NewEvent } from '../../../src/event-store/event-store.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { type MigratedDatabase, migratedDatabase, waitForReadable } from '../../support/postgres.js';
import { runBuiltCli } from '../../support/process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

let counter = 0;
const event = (type: string, data: unknown): NewEvent => ({ id: `cli-${(counter += 1)}`, type, data });

const rowsOf = async (db: Database) => (await db.query('SELECT * FROM stream_summaries ORDER BY id')).rows;

/** Splits a status table line into its cells (columns are separated by two spaces or more). */
const cells = (line: string) => line.trim().split(/\s{2,}/);

describe('the operator CLI against PostgreSQL', () => {
  let database: MigratedDatabase;
  let db: Database;
  let store: PostgresEventStore;
  let runner: ProjectionRunner;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    db = database.db;
    store = new PostgresEventStore(db);
    await store.appendToStream('order-1', [
      event('OrderPlaced', { amount: '100', status: 'placed', customer: 'c-7' }),
      event('OrderPaid', { status: 'paid', txHash: '0xabc' }),
      event('OrderShipped', { status: 'shipped' }),
    ]);
    await store.appendToStream('order-2', [event('OrderPlaced', { amount: '5', status: 'placed' })]);
    await store.appendToStream('customer-7', [
      event('CustomerRegistered', { name: 'Ada' }),
      event('CustomerRenamed', { name: 'Ada L.' }),
    ]);
    // Catch-up reads stop below the server's oldest running transaction: let every append become readable first.
    await waitForReadable(db);
    runner = new ProjectionRunner(db, store, {
      batchSize: 100,
      pollIntervalMs: 10,
      rebuildOnVersionChange: true,
    });
    for (const projection of projections) {
      await runner.prepare(projection);
      while ((await runner.tick(projection)) > 0);
    }
  });

  afterAll(async () => {
    await database?.close();
  });

  describe('events:replay', () => {
    it('prints every event of the stream and the folded state after each', async () => {
      const output = captureOutput();
      expect(await replayStream({ store }, 'order-1', output)).toBe(0);
      expect(output.stderr).toEqual([]);
      const lines = output.stdout;
      expect(lines).toHaveLength(10);
      expect(lines[0]).toMatch(/^#0 OrderPlaced {2}id=cli-\d+ {2}at=\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      expect(lines[1]).toBe('  data:  {"amount":"100","status":"placed","customer":"c-7"}');
      expect(lines[2]).toBe(
        '  state: {"amount":"100","status":"placed","customer":"c-7","revision":"0","lastEventType":"OrderPlaced","events":1}',
      );
      expect(lines[3]).toMatch(/^#1 OrderPaid /);
      expect(lines[6]).toMatch(/^#2 OrderShipped /);
      expect(lines[8]).toBe(
        '  state: {"amount":"100","status":"shipped","customer":"c-7","txHash":"0xabc","revision":"2","lastEventType":"OrderShipped","events":3}',
      );
      expect(lines[9]).toBe('3 events; order-1 is at revision 2');
    });

    it('reads long streams page by page', async () => {
      const output = captureOutput();
      expect(await replayStream({ store }, 'order-1', output, { pageSize: 2 })).toBe(0);
      expect(output.stdout.filter((line) => line.startsWith('#'))).toHaveLength(3);
    });

    it('exits 1 with a message on stderr for an unknown stream', async () => {
      const output = captureOutput();
      expect(await replayStream({ store }, 'order-404', output)).toBe(1);
      expect(output.stdout).toEqual([]);
      expect(output.stderr).toEqual(['Stream order-404 not found: it has no events.']);
    });
  });

  describe('projections:status', () => {
    it('shows each projection live, caught up, with lag 0', async () => {
      const output = captureOutput();
      expect(await projectionStatusCommand({ db, store, projections }, output)).toBe(0);
      const [header, ...rows] = output.stdout.map(cells);
      expect(header).toEqual([
        'PROJECTION',
        'CODE',
        'LIVE',
        'CHECKPOINT',
        'PROCESSED',
        'LAG EVENTS',
        'LAG S',
        'BUILDING',
        'STATE',
      ]);
      const row = rows.find((cellsOfRow) => cellsOfRow[0] === 'stream-summaries')!;
      const { rows: checkpoints } = await db.query<{ commit_position: bigint; prepare_position: bigint }>(
        `SELECT c.commit_position, c.prepare_position FROM projection_checkpoints c
           JOIN projections p ON p.name = c.name AND p.live_generation = c.generation WHERE p.name = $1`,
        ['stream-summaries'],
      );
      const checkpoint = `${checkpoints[0].commit_position}/${checkpoints[0].prepare_position}`;
      expect(row).toEqual([
        'stream-summaries',
        'v1',
        'g1 v1',
        checkpoint,
        '6',
        '0',
        '0.0',
        '-',
        'up to date',
      ]);
      expect(rows).toHaveLength(projections.length);
    });
  });

  describe('projections:rebuild', () => {
    it('rebuilds into a new generation with the same rows, reporting progress and a summary', async () => {
      const before = await rowsOf(db);
      const generationBefore = (await runner.registry.get('stream-summaries'))!.liveGeneration!;
      const output = captureOutput(false);

      expect(
        await rebuildProjectionCommand(
          { db, store, projections, batchSize: 2 },
          ['stream-summaries'],
          output,
        ),
      ).toBe(0);

      const generationAfter = (await runner.registry.get('stream-summaries'))!.liveGeneration!;
      expect(generationAfter).toBe(generationBefore + 1);
      expect(output.stdout).toHaveLength(1);
      expect(output.stdout[0]).toMatch(
        new RegExp(
          `^rebuilt stream-summaries generation ${generationAfter}: 6 events in \\d+\\.\\d s \\(\\d+(\\.\\d)? events/s\\)$`,
        ),
      );
      expect(output.stderr.at(-1)).toMatch(
        /^rebuilding stream-summaries \[#+\] 6\/6 100\.0% [\d.]+ events\/s$/,
      );
      expect(await rowsOf(db)).toEqual(before);
      expect(before).toHaveLength(3);
    });

    it('redraws one line on a terminal', async () => {
      const output = captureOutput(true);
      expect(
        await rebuildProjectionCommand(
          { db, store, projections, batchSize: 100 },
          ['stream-summaries'],
          output,
        ),
      ).toBe(0);
      expect(output.stderr[0]).toMatch(/^\rrebuilding stream-summaries \[/);
      expect(output.stderr.at(-1)).toBe('\n');
    });

    it('lists the known projections for an unknown name and exits 1', async () => {
      const output = captureOutput();
      expect(
        await rebuildProjectionCommand({ db, store, projections, batchSize: 100 }, ['nope'], output),
      ).toBe(1);
      expect(output.stderr).toEqual([
        `Unknown projection "nope". Known projections: ${projections.map((p) => p.name).join(', ')}`,
      ]);
    });

    it('rebuilds projections that share a fold together, and refuses ones that do not', async () => {
      const together = captureOutput();
      expect(
        await rebuildProjectionCommand(
          { db, store, projections, batchSize: 100 },
          ['requests-v3', 'requests-v2'],
          together,
        ),
      ).toBe(0);
      expect(together.stdout).toEqual([
        expect.stringMatching(/^rebuilt requests-v3 generation \d+: 6 events in /),
        expect.stringMatching(/^rebuilt requests-v2 generation \d+: 6 events in /),
      ]);

      const apart = captureOutput();
      expect(
        await rebuildProjectionCommand(
          { db, store, projections, batchSize: 100 },
          ['requests-v3', 'stream-summaries'],
          apart,
        ),
      ).toBe(1);
      expect(apart.stderr).toEqual([
        'requests-v3, stream-summaries do not share a fold; rebuild them one at a time',
      ]);
    });
  });

  describe('projections:audit', () => {
    it('finds no differences in a projection that follows the log', async () => {
      const output = captureOutput();
      expect(await auditProjectionCommand({ db, store, projections }, 'stream-summaries', output)).toBe(0);
      expect(output.stdout).toHaveLength(1);
      expect(output.stdout[0]).toMatch(/^no differences \(3 rows compared at position \d+\/\d+\)$/);
    });

    it('reports each corrupted row and exits 2', async () => {
      const { liveGeneration } = (await runner.registry.get('stream-summaries'))!;
      await db.query(`UPDATE stream_summaries_g${liveGeneration} SET events = 99 WHERE id = 'order-1'`);
      await db.query(`DELETE FROM stream_summaries WHERE id = 'order-2'`);
      await db.query(`INSERT INTO stream_summaries (id, state) VALUES ('ghost-1', '{}')`);

      const output = captureOutput();
      expect(await auditProjectionCommand({ db, store, projections }, 'stream-summaries', output)).toBe(2);
      expect(output.stdout).toEqual([
        'ghost-1: missing in rebuild',
        'order-1: differs at events: live=99 rebuilt=3',
        'order-2: missing in live',
        expect.stringMatching(/^3 rows differ \(3 rows compared at position \d+\/\d+\)$/),
      ]);
    });

    it('lists the known projections for an unknown name and exits 1', async () => {
      const output = captureOutput();
      expect(await auditProjectionCommand({ db, store, projections }, 'nope', output)).toBe(1);
      expect(output.stderr[0]).toContain('Known projections: stream-summaries');
    });
  });

  describe('the real process (node dist/src/cli/main.js)', () => {
    interface Run {
      readonly code: number | null;
      readonly stdout: string;
      readonly stderr: string;
    }

    const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
      runBuiltCli(args, { LOG_LEVEL: 'info', DATABASE_URL: database.url!, ...env });

    beforeAll(() => {
      // npm test builds dist/ before Jest starts (scripts/test.mjs), as `npm run cli` does before it runs.
      if (!existsSync(`${ROOT}dist/src/cli/main.js`)) {
        throw new Error('dist/src/cli/main.js is missing: run the suite through `npm test`, which builds it');
      }
    });

    it('projections:status prints the table and exits 0', async () => {
      const run = await cli(['projections:status']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const lines = run.stdout.trimEnd().split('\n');
      expect(cells(lines[0])[0]).toBe('PROJECTION');
      const row = cells(lines.find((line) => line.startsWith('stream-summaries'))!);
      expect(row[0]).toBe('stream-summaries');
      expect(row[2]).toMatch(/^g\d+ v1$/);
      expect(row[5]).toBe('0');
    });

    it('events:replay prints the stream, and exits 1 for an unknown one', async () => {
      const run = await cli(['events:replay', 'customer-7']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        '"name":"Ada L.","revision":"1","lastEventType":"CustomerRenamed","events":2}',
      );
      const missing = await cli(['events:replay', 'customer-404']);
      expect(missing).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'Stream customer-404 not found: it has no events.\n',
      });
    });

    it('audit exits 2 when the live rows differ from a rebuild', async () => {
      const run = await cli(['audit', 'stream-summaries']);
      expect(run.code).toBe(2);
      expect(run.stdout).toContain('order-1: differs at events: live=99 rebuilt=3\n');
    });

    it('help exits 0 listing every command', async () => {
      for (const args of [['help'], [], ['--help']]) {
        const run = await cli(args);
        expect(run.code).toBe(0);
        for (const name of [
          'events:replay',
          'projections:status',
          'projections:rebuild',
          'projections:audit',
        ]) {
          expect(run.stdout).toContain(name);
        }
      }
    });

    it('takes the spaced form of a command too (projections status), as the first docs wrote it', async () => {
      const colon = await cli(['projections:status']);
      const spaced = await cli(['projections', 'status']);
      expect(spaced.code).toBe(0);
      expect(spaced.stdout).toBe(colon.stdout);
    });

    it('an unknown command prints the usage on stderr and exits 1', async () => {
      const run = await cli(['frobnicate']);
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain('Unknown command "frobnicate".');
      expect(run.stderr).toContain('projections:status');
    });

    it('a missing argument prints the command usage and exits 1', async () => {
      const run = await cli(['projections:rebuild']);
      expect(run).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'Usage: npm run cli -- projections:rebuild <name> [<name> …]\n',
      });
    });

    it('a configuration error prints its one line and exits 1', async () => {
      const run = await cli(['projections:status'], { DATABASE_URL: 'mysql://nope' });
      expect(run).toMatchObject({
        code: 1,
        stdout: '',
        stderr: 'Invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL\n',
      });
    });
  });
});
