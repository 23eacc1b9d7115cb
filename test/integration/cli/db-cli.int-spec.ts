import pg from 'pg';
import { migrationNames } from '../../../src/database/migration-status.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { runBuiltCli } from '../../support/process.js';

/** `db:status`, `db:migrate`, and the other commands, which leave an unmigrated database as it is. */
describe('the db commands of the operator CLI', () => {
  let database: TestDatabase;
  const cli = (...args: string[]) => runBuiltCli(args, { DATABASE_URL: database.url });
  const tables = async (): Promise<string[]> => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
      );
      return rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it('read-only commands never migrate: an empty database stays empty', async () => {
    const status = await cli('projections:status');
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(
      /^Note: \d+ migrations are pending and projections:status does not migrate/,
    );
    for (const args of [
      ['api-keys:list', '--json'],
      ['solver:jobs'],
      ['webhooks:deliveries'],
      ['events:replay', 'x'],
    ]) {
      expect((await cli(...args)).code).toBe(1);
    }
    expect(await tables()).toEqual([]);
  });

  it('commands that change data never migrate either: they refuse with exit code 3 and change nothing', async () => {
    const job = `refund:0x${'ab'.repeat(32)}`;
    for (const [name, ...args] of [
      ['api-keys:create', '--label', 'behind'],
      ['solver:retry', job],
      ['projections:rebuild', 'requests-v3'],
      ['webhooks:remove', 'fk_behind'],
    ]) {
      const run = await cli(...name.split(':'), ...args);
      expect(run).toMatchObject({ code: 3, stdout: '' });
      expect(run.stderr).toMatch(
        new RegExp(
          `^${name} changes data, and the database lacks \\d+ migrations of this version of Ferry; nothing was ` +
            'changed\\. Apply them first: npm run cli -- db:migrate \\(npm run cli -- db:status lists them\\)\\.\\n$',
        ),
      );
    }
    expect(await tables()).toEqual([]);
  });

  it('db:status lists every migration as pending, db:migrate applies them once, then all are applied', async () => {
    const names = migrationNames();
    const before = await cli('db:status');
    expect(before).toMatchObject({ code: 0, stderr: '' });
    expect(before.stdout).toContain(
      `0 applied, ${names.length} pending (apply them with: npm run cli -- db:migrate)`,
    );
    expect(await tables()).toEqual([]);

    const migrated = await cli('db:migrate');
    expect(migrated).toMatchObject({ code: 0, stderr: '' });
    expect(migrated.stdout.trimEnd().split('\n')).toEqual([
      ...names.map((name) => `applied ${name}`),
      `${names.length} migrations applied.`,
    ]);
    expect(await cli('db', 'migrate')).toMatchObject({
      code: 0,
      stdout: 'Nothing to migrate: every migration is applied.\n',
    });

    const after = await cli('db:status', '--json');
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({ applied: names, pending: [], unknown: [] });
    expect((await cli('projections:status')).stderr).toBe('');
    // Now a command that changes data runs (and finds no such job).
    expect(await cli('solver:retry', `refund:0x${'ab'.repeat(32)}`)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^No failed job refund:0x/),
    });
  });

  it('the listings print JSON with --json', async () => {
    const keys = await cli('api-keys:list', '--json');
    expect(keys).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(keys.stdout)).toEqual([]);
    const status = await cli('projections:status', '--json');
    expect(JSON.parse(status.stdout)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'requests-v3', state: expect.any(String) })]),
    );
    expect(JSON.parse((await cli('solver:jobs', '--json')).stdout)).toEqual([]);
    expect(JSON.parse((await cli('webhooks:deliveries', '--json')).stdout)).toEqual([]);
  });

  it('--help prints a command’s usage and options and exits 0 without opening anything', async () => {
    const help = await runBuiltCli(['api-keys:create', '--help'], { DATABASE_URL: 'mysql://nope' });
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: npm run cli -- api-keys:create --label <label> [options]');
    expect(help.stdout).toMatch(/--webhook-header 'Name: value' +a header sent with every delivery/);
    const spaced = await runBuiltCli(['help', 'api-keys', 'create'], { DATABASE_URL: 'mysql://nope' });
    expect(spaced.stdout).toBe(help.stdout);
    const unknown = await cli('api-keys:list', '--colour');
    expect(unknown).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'Unknown option --colour. Options: --json\nUsage: npm run cli -- api-keys:list [--json]\n',
    });
  });
});
