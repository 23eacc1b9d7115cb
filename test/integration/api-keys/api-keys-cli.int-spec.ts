import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { createApiKeyCommand } from '../../../src/cli/commands/api-keys-create.command.js';
import { listApiKeysCommand } from '../../../src/cli/commands/api-keys-list.command.js';
import { revokeApiKeyCommand } from '../../../src/cli/commands/api-keys-revoke.command.js';
import { captureOutput } from '../../../src/cli/output.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';
import { runBuiltCli } from '../../support/process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const KEY = /fk_[A-Za-z0-9_-]{43}/g;

/** Splits a table line into its cells (columns are separated by two spaces or more). */
const cells = (line: string) => line.trim().split(/\s{2,}/);

describe('the api-keys CLI commands against PostgreSQL', () => {
  let database: MigratedDatabase;
  let apiKeys: ApiKeysService;
  const secret = randomBytes(32);

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    apiKeys = new ApiKeysService(database.db, {
      apiKeys: { encryptionKey: secret, defaultRateLimitPerMinute: 600, anonymousRateLimitPerMinute: 0 },
    });
  });
  afterAll(async () => {
    await database?.close();
  });

  const deps = () => ({ apiKeys, defaultRateLimitPerMinute: 600 });

  it('create prints the key exactly once, with a warning that it cannot be shown again', async () => {
    const output = captureOutput();
    const code = await createApiKeyCommand(
      deps(),
      [
        '--label',
        'Acme wallet',
        '--rate-limit',
        '30',
        '--sponsorship',
        '--webhook-url',
        'https://hooks.acme.example/ferry',
        '--webhook-header',
        'Authorization: Bearer hook-token',
      ],
      output,
    );
    expect(code).toBe(0);
    expect(output.stderr).toEqual([]);
    const text = output.stdout.join('\n');
    const keys = text.match(KEY) ?? [];
    expect(keys).toHaveLength(1);
    expect(text).toContain('cannot be shown again');
    expect(text).toContain('30/min');
    expect(text).toContain('fee sponsorship: enabled');
    expect(text).toContain('https://hooks.acme.example/ferry (headers: Authorization)');
    expect(text).not.toContain('hook-token');
    expect(await apiKeys.authenticate(keys[0]!)).toMatchObject({
      label: 'Acme wallet',
      rateLimitPerMinute: 30,
    });
  });

  it('create refuses bad options and bad settings with exit 1, creating nothing', async () => {
    const before = (await apiKeys.list()).length;
    const output = captureOutput();
    expect(await createApiKeyCommand(deps(), ['--rate-limit', '5'], output)).toBe(1);
    expect(output.stderr[0]).toBe('--label is required');
    const bad = captureOutput();
    expect(await createApiKeyCommand(deps(), ['--label', 'x', '--webhook-url', 'ftp://nope'], bad)).toBe(1);
    expect(bad.stderr).toEqual(['Cannot create the API key: webhookUrl must use http or https (got ftp:)']);
    expect(bad.stdout).toEqual([]);
    expect((await apiKeys.list()).length).toBe(before);
  });

  it('list shows a table with no secret, and revoke then authenticate → null', async () => {
    const created = captureOutput();
    await createApiKeyCommand(deps(), ['--label', 'Revoke me'], created);
    const key = created.stdout.join('\n').match(KEY)![0];

    const listed = captureOutput();
    expect(await listApiKeysCommand(deps(), listed)).toBe(0);
    expect(cells(listed.stdout[0])).toEqual([
      'ID',
      'PREFIX',
      'LABEL',
      'RATE/MIN',
      'SPONSORSHIP',
      'WEBHOOK',
      'CREATED',
      'REVOKED',
      'KYB',
      'SHARE TO',
      '30D VOLUME USD',
      'SHARE TIER',
    ]);
    const row = cells(listed.stdout.find((line) => line.includes('Revoke me'))!);
    expect(row.slice(1, 6)).toEqual([`${key.slice(0, 10)}…`, 'Revoke me', '600 (default)', 'no', '-']);
    expect(row[7]).toBe('-');
    const listText = listed.stdout.join('\n');
    expect(listText).not.toMatch(KEY);
    expect(listText).not.toContain(key.slice(10));
    expect(listText).not.toContain('hook-token');

    const revoked = captureOutput();
    expect(await revokeApiKeyCommand({ apiKeys }, key.slice(0, 10), revoked)).toBe(0);
    expect(revoked.stdout[0]).toMatch(
      /^Revoked API key [0-9a-f-]{36} \(fk_.{7}…, "Revoke me"\) at \d{4}-.*Z$/,
    );
    expect(await apiKeys.authenticate(key)).toBeNull();
    const again = captureOutput();
    expect(await revokeApiKeyCommand({ apiKeys }, key.slice(0, 10), again)).toBe(0);
    expect(again.stdout[0]).toContain('was already revoked at');

    const relisted = captureOutput();
    await listApiKeysCommand(deps(), relisted);
    const revokedRow = cells(relisted.stdout.find((line) => line.includes('Revoke me'))!);
    expect(revokedRow[7]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('revoke of an unknown key exits 1 and says so on stderr', async () => {
    const output = captureOutput();
    expect(await revokeApiKeyCommand({ apiKeys }, 'fk_0000000', output)).toBe(1);
    expect(output).toMatchObject({ stdout: [], stderr: ['No API key matches fk_0000000'] });
  });

  describe('the real process (node dist/src/cli/main.js)', () => {
    const cli = (args: string[]) =>
      runBuiltCli(args, { DATABASE_URL: database.url!, API_KEY_ENCRYPTION_KEY: secret.toString('hex') });

    beforeAll(() => {
      if (!existsSync(`${ROOT}dist/src/cli/main.js`)) {
        throw new Error('dist/src/cli/main.js is missing: run the suite through `npm test`, which builds it');
      }
    });

    it('creates, lists and revokes with the configured secret', async () => {
      const created = await cli([
        'api-keys:create',
        '--label',
        'From the shell',
        '--webhook-header',
        'X-Team: core',
      ]);
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const key = created.stdout.match(KEY)![0];
      expect(created.stdout.match(KEY)).toHaveLength(1);
      // The process used API_KEY_ENCRYPTION_KEY: this process, with the same secret, finds the key.
      const found = await apiKeys.authenticate(key);
      expect(found).toMatchObject({ label: 'From the shell' });

      const listed = await cli(['api-keys:list']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain('From the shell');
      expect(listed.stdout).not.toMatch(KEY);

      expect(await cli(['api-keys:revoke', found!.id])).toMatchObject({ code: 0, stderr: '' });
      expect(await apiKeys.authenticate(key)).toBeNull();
    });

    it('creates with the spaced form too (api-keys create), as the first docs wrote it', async () => {
      const created = await cli(['api-keys', 'create', '--label', 'Spaced form']);
      expect(created).toMatchObject({ code: 0, stderr: '' });
      const found = await apiKeys.authenticate(created.stdout.match(KEY)![0]);
      expect(found).toMatchObject({ label: 'Spaced form' });
    });

    it('checks the options before opening anything', async () => {
      const run = await cli(['api-keys:create', '--sponsorship']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^--label is required\. Options: .*\nUsage: npm run cli -- api-keys:create --label <label> \[options\]\n$/,
      );
      expect(await cli(['api-keys:revoke'])).toMatchObject({
        code: 1,
        stderr: 'Usage: npm run cli -- api-keys:revoke <id|prefix>\n',
      });
    });
  });
});
