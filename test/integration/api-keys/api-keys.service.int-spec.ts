import { randomBytes } from 'node:crypto';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { ApiError } from '../../../src/common/http/api-error.js';
import type { Database } from '../../../src/database/database.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';

const serviceWith = (db: Database, secret: Buffer) =>
  new ApiKeysService(db, {
    apiKeys: { encryptionKey: secret, defaultRateLimitPerMinute: 600, anonymousRateLimitPerMinute: 0 },
  });

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('did not throw');
}

describe.each(['postgres', 'pglite'] as const)('ApiKeysService on %s', (kind) => {
  let database: MigratedDatabase;
  let db: Database;
  let sut: ApiKeysService;
  const secret = randomBytes(32);

  beforeAll(async () => {
    database = await migratedDatabase(kind);
    db = database.db;
    sut = serviceWith(db, secret);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('creates a key, returns it once with its settings, and authenticates it', async () => {
    const created = await sut.create({
      label: 'Acme wallet',
      rateLimitPerMinute: 120,
      feeSponsorshipEnabled: true,
      webhookUrl: 'https://hooks.acme.example/ferry',
      webhookHeaders: { Authorization: 'Bearer hook-token' },
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key: expect.stringMatching(/^fk_[A-Za-z0-9_-]{43}$/),
      label: 'Acme wallet',
      rateLimitPerMinute: 120,
      feeSponsorshipEnabled: true,
      webhookUrl: 'https://hooks.acme.example/ferry',
      webhookHeaderNames: ['Authorization'],
      revokedAt: null,
    });
    // The header's value went in; it does not come back out (only the webhook sender decrypts it, through get()).
    expect(JSON.stringify(created)).not.toContain('hook-token');
    expect(created.keyPrefix).toBe(created.key.slice(0, 10));
    expect(created.createdAt).toBeInstanceOf(Date);

    expect(await sut.authenticate(created.key)).toEqual({
      id: created.id,
      label: 'Acme wallet',
      keyPrefix: created.keyPrefix,
      rateLimitPerMinute: 120,
      feeSponsorshipEnabled: true,
      sponsorAddress: null,
      kybVerified: false,
      revenueShareAddress: null,
    });
    const defaults = await sut.create({ label: 'defaults' });
    expect(await sut.authenticate(defaults.key)).toMatchObject({
      rateLimitPerMinute: null,
      feeSponsorshipEnabled: false,
    });
  });

  it('keeps the sponsor address of a sponsoring key, lowercased', async () => {
    const created = await sut.create({
      label: 'sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: '0x00000000000000000000000000000000000000AB',
    });
    expect(await sut.authenticate(created.key)).toMatchObject({
      sponsorAddress: '0x00000000000000000000000000000000000000ab',
    });
  });

  it('stores neither the plaintext key nor anything it can be read from without the secret', async () => {
    const created = await sut.create({ label: 'storage check', webhookHeaders: { 'X-Team': 'core' } });
    const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [
      created.id,
    ]);
    expect(Object.keys(rows[0]).sort()).toEqual(
      [
        'created_at',
        'fee_sponsorship_enabled',
        'id',
        'key_ciphertext',
        'key_hash',
        'key_prefix',
        'kyb_verified',
        'label',
        'rate_limit_per_minute',
        'revenue_share_address',
        'revoked_at',
        'sponsor_address',
        'webhook_disabled_at',
        'webhook_disabled_reason',
        'webhook_headers',
        'webhook_url',
      ].sort(),
    );
    const secretPart = created.key.slice(10); // everything past the displayed prefix
    const randomBytesOfKey = Buffer.from(created.key.slice(3), 'base64url');
    for (const [column, value] of Object.entries(rows[0])) {
      const text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
      expect({ column, containsKey: text.includes(created.key) }).toEqual({ column, containsKey: false });
      expect({ column, containsSecretPart: text.includes(secretPart) }).toEqual({
        column,
        containsSecretPart: false,
      });
      if (typeof value === 'string') {
        for (const encoding of ['hex', 'base64'] as const) {
          const decoded = Buffer.from(value, encoding);
          expect(decoded.includes(Buffer.from(created.key))).toBe(false);
          expect(decoded.includes(randomBytesOfKey.subarray(5))).toBe(false);
        }
      }
    }
    expect(rows[0].key_prefix).toBe(created.key.slice(0, 10));
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);

    // Another secret neither finds nor decrypts it.
    const other = serviceWith(db, randomBytes(32));
    expect(await other.authenticate(created.key)).toBeNull();
    await expect(other.reveal(created.id)).rejects.toThrow(/does not decrypt under the configured secret/);
  });

  it('stores webhook header values only encrypted, each bound to its key and header name', async () => {
    const value = `Bearer receiver-${randomBytes(12).toString('hex')}`;
    const created = await sut.create({
      label: 'header storage',
      webhookUrl: 'https://hooks.acme.example/ferry',
      webhookHeaders: { Authorization: value, 'X-Tenant': 'acme-tenant-7' },
    });
    const raw = async (id: string) =>
      (
        await db.query<{ text: string; headers: Record<string, unknown> }>(
          'SELECT row_to_json(k)::text AS text, webhook_headers AS headers FROM api_keys k WHERE id = $1',
          [id],
        )
      ).rows[0];
    const row = await raw(created.id);
    expect(row.text).not.toContain(value);
    expect(row.text).not.toContain(value.slice('Bearer '.length));
    expect(row.text).not.toContain('acme-tenant-7');
    expect(row.headers).toEqual({
      Authorization: { sealed: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) },
      'X-Tenant': { sealed: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) },
    });
    // Fresh IV per value: equal values do not show as equal ciphertexts.
    const twin = await sut.create({ label: 'twin', webhookHeaders: { Authorization: value } });
    expect((await raw(twin.id)).headers).not.toEqual({ Authorization: row.headers.Authorization });

    // Only the webhook sender's get() decrypts; every other answer carries names only.
    expect((await sut.get(created.id))?.webhookHeaders).toEqual({
      Authorization: value,
      'X-Tenant': 'acme-tenant-7',
    });
    const replaced = await sut.setWebhook(
      created.id,
      { url: 'https://hooks.acme.example/v2', headers: { Authorization: value } },
      async () => null,
    );
    for (const answer of [created, replaced, await sut.find(created.id), await sut.list()]) {
      expect(JSON.stringify(answer)).not.toContain(value.slice('Bearer '.length));
    }
    expect(replaced.webhookHeaderNames).toEqual(['Authorization']);
    expect((await sut.get(created.id))?.webhookHeaders).toEqual({ Authorization: value });

    // Another secret cannot read it; a sealed value moved to another header or another key does not decrypt.
    await expect(serviceWith(db, randomBytes(32)).get(created.id)).rejects.toThrow(
      /webhook header Authorization .* does not decrypt under the configured secret/,
    );
    const sealed = (await raw(created.id)).headers.Authorization;
    await db.query('UPDATE api_keys SET webhook_headers = $2::jsonb WHERE id = $1', [
      created.id,
      JSON.stringify({ 'X-Other': sealed }),
    ]);
    await expect(sut.get(created.id)).rejects.toThrow(/tampered or wrong key/);
    await db.query('UPDATE api_keys SET webhook_headers = $2::jsonb WHERE id = $1', [
      twin.id,
      JSON.stringify({ Authorization: sealed }),
    ]);
    await expect(sut.get(twin.id)).rejects.toThrow(/tampered or wrong key/);
    const error = await sut.get(twin.id).catch((e: Error) => e);
    expect(String(error)).not.toContain(value.slice('Bearer '.length));
  });

  it('reads header values stored in clear by an earlier release, and encrypts them in place', async () => {
    const key = await sut.create({ label: 'legacy headers', webhookUrl: 'https://hooks.acme.example/ferry' });
    const sealedKey = await sut.create({ label: 'already sealed', webhookHeaders: { 'X-A': 'sealed-one' } });
    const value = `Bearer legacy-${randomBytes(12).toString('hex')}`;
    const before = (
      await db.query<{ headers: unknown }>('SELECT webhook_headers AS headers FROM api_keys WHERE id = $1', [
        sealedKey.id,
      ])
    ).rows[0].headers;
    // As the previous release wrote them: values in clear, one of them next to an already sealed one.
    await db.query('UPDATE api_keys SET webhook_headers = $2::jsonb WHERE id = $1', [
      key.id,
      JSON.stringify({ Authorization: value, 'X-Tenant': 'acme' }),
    ]);
    expect((await sut.get(key.id))?.webhookHeaders).toEqual({ Authorization: value, 'X-Tenant': 'acme' });

    expect(await sut.encryptClearWebhookHeaders()).toBe(1);
    const { rows } = await db.query<{ id: string; text: string; headers: unknown }>(
      'SELECT id, row_to_json(k)::text AS text, webhook_headers AS headers FROM api_keys k WHERE id = ANY($1)',
      [[key.id, sealedKey.id]],
    );
    const legacy = rows.find((row) => row.id === key.id)!;
    expect(legacy.text).not.toContain(value.slice('Bearer '.length));
    expect(legacy.headers).toEqual({
      Authorization: { sealed: expect.any(String) },
      'X-Tenant': { sealed: expect.any(String) },
    });
    expect(rows.find((row) => row.id === sealedKey.id)!.headers).toEqual(before);
    expect((await sut.get(key.id))?.webhookHeaders).toEqual({ Authorization: value, 'X-Tenant': 'acme' });
    expect(await sut.encryptClearWebhookHeaders()).toBe(0);
  });

  it('reveals the plaintext for the webhook signer, and refuses a tampered or moved ciphertext', async () => {
    const a = await sut.create({ label: 'reveal a' });
    const b = await sut.create({ label: 'reveal b' });
    expect(await sut.reveal(a.id)).toBe(a.key);
    expect(await sut.reveal(b.id)).toBe(b.key);
    expect((await apiError(sut.reveal('6f1f0f5e-1111-4111-8111-111111111111'))).errorCode).toBe('NOT_FOUND');
    expect((await apiError(sut.reveal('not-an-id'))).errorCode).toBe('NOT_FOUND');

    // a's ciphertext copied onto b's row: bound to a's id, it no longer decrypts.
    await db.query(
      'UPDATE api_keys SET key_ciphertext = (SELECT key_ciphertext FROM api_keys WHERE id = $1) WHERE id = $2',
      [a.id, b.id],
    );
    await expect(sut.reveal(b.id)).rejects.toThrow(/tampered or wrong key/);
    const { rows } = await db.query<{ key_ciphertext: string }>(
      'SELECT key_ciphertext FROM api_keys WHERE id = $1',
      [a.id],
    );
    const bytes = Buffer.from(rows[0].key_ciphertext, 'base64');
    bytes[bytes.length - 1] ^= 0x80;
    await db.query('UPDATE api_keys SET key_ciphertext = $1 WHERE id = $2', [bytes.toString('base64'), a.id]);
    await expect(sut.reveal(a.id)).rejects.toThrow(/tampered or wrong key/);
    // Authentication does not depend on the ciphertext.
    expect(await sut.authenticate(a.key)).toMatchObject({ id: a.id });
  });

  it('lists every key without secrets: no key, hash, ciphertext or webhook header values', async () => {
    const created = await sut.create({
      label: 'listed',
      webhookUrl: 'http://localhost:9000/hook',
      webhookHeaders: { Authorization: 'Bearer very-secret-hook-token' },
    });
    const list = await sut.list();
    const entry = list.find((key) => key.id === created.id);
    expect(entry).toEqual({
      id: created.id,
      label: 'listed',
      keyPrefix: created.keyPrefix,
      rateLimitPerMinute: null,
      feeSponsorshipEnabled: false,
      sponsorAddress: null,
      kybVerified: false,
      revenueShareAddress: null,
      webhookUrl: 'http://localhost:9000/hook',
      webhookHeaderNames: ['Authorization'],
      webhookDisabledAt: null,
      webhookDisabledReason: null,
      createdAt: expect.any(Date),
      revokedAt: null,
    });
    const text = JSON.stringify(list);
    expect(text).not.toContain(created.key.slice(10));
    expect(text).not.toContain('very-secret-hook-token');
    expect(text).not.toMatch(/[0-9a-f]{64}/);
    // The webhook sender gets the headers through get().
    expect((await sut.get(created.id))?.webhookHeaders).toEqual({
      Authorization: 'Bearer very-secret-hook-token',
    });
    expect(await sut.get('nope')).toBeNull();
  });

  it('refuses unknown keys and strings that are not keys', async () => {
    const created = await sut.create({ label: 'shape' });
    const forged = `${created.key.slice(0, -1)}${created.key.endsWith('A') ? 'B' : 'A'}`;
    for (const presented of [
      forged,
      '',
      'fk_',
      'Bearer ' + created.key,
      created.key.slice(0, 10),
      'x'.repeat(10_000),
    ]) {
      expect(await sut.authenticate(presented)).toBeNull();
    }
  });

  it('revokes by id, by displayed prefix or by the full key; idempotently; revoked keys no longer authenticate', async () => {
    const byId = await sut.create({ label: 'revoke by id' });
    const byPrefix = await sut.create({ label: 'revoke by prefix' });
    const byKey = await sut.create({ label: 'revoke by key' });

    const first = await sut.revoke(byId.id);
    expect(first).toMatchObject({
      alreadyRevoked: false,
      apiKey: { id: byId.id, revokedAt: expect.any(Date) },
    });
    const again = await sut.revoke(byId.id);
    expect(again.alreadyRevoked).toBe(true);
    expect(again.apiKey.revokedAt).toEqual(first.apiKey.revokedAt);
    expect((await sut.revoke(byPrefix.keyPrefix)).apiKey.id).toBe(byPrefix.id);
    expect((await sut.revoke(byKey.key)).apiKey.id).toBe(byKey.id);

    for (const key of [byId, byPrefix, byKey]) expect(await sut.authenticate(key.key)).toBeNull();
    expect((await sut.list()).find((key) => key.id === byId.id)?.revokedAt).toEqual(first.apiKey.revokedAt);
  });

  it('says which keys an ambiguous prefix matches, and when nothing matches (never echoing a full key)', async () => {
    const created = await sut.create({ label: 'ambiguous' });
    await db.query(
      `INSERT INTO api_keys (id, label, key_prefix, key_hash, key_ciphertext)
       VALUES ('7a0c3f7e-2222-4222-8222-222222222222', 'twin', $1, 'deadbeef', 'x')`,
      [created.keyPrefix],
    );
    const ambiguous = await apiError(sut.revoke(created.keyPrefix));
    expect(ambiguous.errorCode).toBe('INVALID_INPUT');
    expect(ambiguous.message).toContain(created.id);
    expect((await sut.revoke(created.id)).alreadyRevoked).toBe(false);

    expect((await apiError(sut.revoke('fk_nothere'))).errorCode).toBe('NOT_FOUND');
    expect((await apiError(sut.revoke('7a0c3f7e-3333-4333-8333-333333333333'))).errorCode).toBe('NOT_FOUND');
    expect((await apiError(sut.revoke('what'))).errorCode).toBe('INVALID_INPUT');
    const unknownKey = `fk_${randomBytes(32).toString('base64url')}`;
    const missing = await apiError(sut.revoke(unknownKey));
    expect(missing.errorCode).toBe('NOT_FOUND');
    expect(missing.message).not.toContain(unknownKey);
  });

  it('validates settings before writing anything', async () => {
    const before = (await sut.list()).length;
    const error = await apiError(sut.create({ label: 'bad', webhookHeaders: { 'Bad Header': 'x' } }));
    expect(error.errorCode).toBe('INVALID_INPUT');
    expect(error.message).toContain('RFC 7230');
    expect((await apiError(sut.create({ label: '' }))).message).toContain(
      'label must be 1 to 100 characters',
    );
    expect((await sut.list()).length).toBe(before);
  });
});
