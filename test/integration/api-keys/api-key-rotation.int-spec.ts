import { randomBytes } from 'node:crypto';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type { Database } from '../../../src/database/database.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';
import { runBuiltCli } from '../../support/process.js';

const serviceWith = (db: Database, encryptionKey: Buffer, previousEncryptionKey?: Buffer) =>
  new ApiKeysService(db, {
    apiKeys: {
      encryptionKey,
      previousEncryptionKey,
      defaultRateLimitPerMinute: 600,
      anonymousRateLimitPerMinute: 0,
    },
  });

const KEY = /fk_[A-Za-z0-9_-]{43}/;

/**
 * Rotating API_KEY_ENCRYPTION_KEY (docs/operations.md, "Key rotation"): instances read under the new secret and the
 * previous one, `api-keys:reencrypt` rewrites every row under the new one, then the previous secret is dropped.
 * Integrators' keys and their webhook header values keep working throughout.
 */
describe.each(['postgres', 'pglite'] as const)('rotating the API key encryption key on %s', (kind) => {
  let database: MigratedDatabase;
  const oldSecret = randomBytes(32);
  const newSecret = randomBytes(32);

  beforeAll(async () => {
    database = await migratedDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('keeps every key, revocation and webhook header working from the old secret to the new one', async () => {
    const before = serviceWith(database.db, oldSecret);
    const hooked = await before.create({
      label: 'hooked',
      webhookUrl: 'https://hooks.acme.example/ferry',
      webhookHeaders: { Authorization: 'Bearer receiver-credential' },
    });
    const revoked = await before.create({ label: 'revoked' });
    await before.revoke(revoked.id);

    // The new secret alone does not know the old keys: that is why the previous one is kept while rows are rewritten.
    expect(await serviceWith(database.db, newSecret).authenticate(hooked.key)).toBeNull();

    const during = serviceWith(database.db, newSecret, oldSecret);
    expect(await during.authenticate(hooked.key)).toMatchObject({ id: hooked.id });
    expect(await during.authenticate(revoked.key)).toBeNull();
    expect(await during.reveal(hooked.id)).toBe(hooked.key);
    expect((await during.get(hooked.id))!.webhookHeaders).toEqual({
      Authorization: 'Bearer receiver-credential',
    });
    expect(await during.find(hooked.key)).toMatchObject({ id: hooked.id });
    // Written during the rotation: under the new secret at once.
    const created = await during.create({ label: 'created during' });
    expect(await serviceWith(database.db, newSecret).authenticate(created.key)).toMatchObject({
      id: created.id,
    });

    const first = await during.reencrypt();
    expect(first).toMatchObject({ unreadable: [], changedMeanwhile: [] });
    expect(first.rewritten).toBeGreaterThanOrEqual(2);
    const again = await during.reencrypt();
    expect(again).toMatchObject({ rewritten: 0, unreadable: [], changedMeanwhile: [] });
    expect(again.current).toBe(first.current + first.rewritten);

    const after = serviceWith(database.db, newSecret);
    expect(await after.authenticate(hooked.key)).toMatchObject({ id: hooked.id, label: 'hooked' });
    expect(await after.authenticate(revoked.key)).toBeNull();
    expect(await after.reveal(hooked.id)).toBe(hooked.key);
    expect((await after.get(hooked.id))!.webhookHeaders).toEqual({
      Authorization: 'Bearer receiver-credential',
    });
    // And the old secret alone opens nothing any more: a database copy taken now is useless with it.
    expect(await serviceWith(database.db, oldSecret).authenticate(hooked.key)).toBeNull();
    await expect(serviceWith(database.db, oldSecret).reveal(hooked.id)).rejects.toThrow(/does not decrypt/);
  });

  it('leaves a key under neither secret as it is and names it by id, never by content', async () => {
    const stranger = await serviceWith(database.db, randomBytes(32)).create({
      label: 'under a third secret',
      webhookUrl: 'https://hooks.acme.example/ferry',
      webhookHeaders: { 'X-Token': 'third-secret-credential' },
    });
    const rowBefore = await database.db.query('SELECT * FROM api_keys WHERE id = $1', [stranger.id]);
    const result = await serviceWith(database.db, newSecret, oldSecret).reencrypt();
    expect(result.unreadable.map((entry) => entry.id)).toEqual([stranger.id]);
    expect(JSON.stringify(result)).not.toMatch(KEY);
    expect(JSON.stringify(result)).not.toContain('third-secret-credential');
    const rowAfter = await database.db.query('SELECT * FROM api_keys WHERE id = $1', [stranger.id]);
    expect(rowAfter.rows).toEqual(rowBefore.rows);
    await database.db.query('DELETE FROM api_keys WHERE id = $1', [stranger.id]);
  });

  it('never overwrites a webhook header an instance set while the rotation read the row', async () => {
    const key = await serviceWith(database.db, oldSecret).create({
      label: 'changed meanwhile',
      webhookUrl: 'https://hooks.acme.example/ferry',
      webhookHeaders: { Authorization: 'Bearer first' },
    });
    const serving = serviceWith(database.db, newSecret, oldSecret);
    // Between the rotation's read and its write, an instance serving integrators sets a new header value.
    let raced = false;
    const racing: Database = new Proxy(database.db, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver);
        return async (text: string, ...rest: unknown[]) => {
          if (!raced && text.includes('UPDATE api_keys SET key_hash')) {
            raced = true;
            await serving.setWebhook(
              key.id,
              { url: 'https://hooks.acme.example/ferry', headers: { Authorization: 'Bearer second' } },
              async () => null,
            );
          }
          return (target.query as (...args: unknown[]) => unknown).call(target, text, ...rest);
        };
      },
    });
    const result = await serviceWith(racing, newSecret, oldSecret).reencrypt();
    expect(raced).toBe(true);
    expect(result.changedMeanwhile).toContain(key.id);
    expect((await serving.get(key.id))!.webhookHeaders).toEqual({ Authorization: 'Bearer second' });
    // The next run finishes the row.
    expect(await serving.reencrypt()).toMatchObject({ changedMeanwhile: [], unreadable: [] });
    expect(await serviceWith(database.db, newSecret).authenticate(key.key)).toMatchObject({ id: key.id });
    expect((await serviceWith(database.db, newSecret).get(key.id))!.webhookHeaders).toEqual({
      Authorization: 'Bearer second',
    });
  });
});

describe('npm run cli -- api-keys:reencrypt (the built process, on PostgreSQL)', () => {
  let database: MigratedDatabase;
  const oldSecret = randomBytes(32);
  const newSecret = randomBytes(32);
  const cli = (args: string[], env: Record<string, string>) =>
    runBuiltCli(args, { DATABASE_URL: database.url!, ...env });

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('rewrites the keys, says the previous secret can go, and changes nothing on a second run', async () => {
    const created = await serviceWith(database.db, oldSecret).create({ label: 'from the shell' });
    const rotating = {
      API_KEY_ENCRYPTION_KEY: newSecret.toString('hex'),
      API_KEY_ENCRYPTION_KEY_PREVIOUS: oldSecret.toString('hex'),
    };
    const first = await cli(['api-keys:reencrypt'], rotating);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    expect(first.stdout).toContain('Rewrote 1 API key(s) under API_KEY_ENCRYPTION_KEY; 0 already were');
    expect(first.stdout).toContain('API_KEY_ENCRYPTION_KEY_PREVIOUS can now be removed');
    expect(first.stdout + first.stderr).not.toMatch(KEY);
    expect(await serviceWith(database.db, newSecret).authenticate(created.key)).toMatchObject({
      id: created.id,
    });
    const second = await cli(['api-keys:reencrypt'], rotating);
    expect(second).toMatchObject({ code: 0 });
    expect(second.stdout).toContain('Rewrote 0 API key(s) under API_KEY_ENCRYPTION_KEY; 1 already were');
  });

  it('exits 2 naming a key it could not read, and refuses a previous secret equal to the current one', async () => {
    const stranger = await serviceWith(database.db, randomBytes(32)).create({ label: 'third secret' });
    const left = await cli(['api-keys:reencrypt'], {
      API_KEY_ENCRYPTION_KEY: newSecret.toString('hex'),
      API_KEY_ENCRYPTION_KEY_PREVIOUS: oldSecret.toString('hex'),
    });
    expect(left.code).toBe(2);
    expect(left.stderr).toContain(`Left API key ${stranger.id}`);
    expect(left.stderr).toContain('Keep API_KEY_ENCRYPTION_KEY_PREVIOUS set');

    const same = await cli(['api-keys:reencrypt'], {
      API_KEY_ENCRYPTION_KEY: newSecret.toString('hex'),
      API_KEY_ENCRYPTION_KEY_PREVIOUS: newSecret.toString('base64'),
    });
    expect(same.code).toBe(1);
    expect(same.stderr).toContain(
      'API_KEY_ENCRYPTION_KEY_PREVIOUS is the same secret as API_KEY_ENCRYPTION_KEY',
    );
  });
});
