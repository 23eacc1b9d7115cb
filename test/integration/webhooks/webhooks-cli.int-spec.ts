import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { createApiKeyCommand } from '../../../src/cli/commands/api-keys-create.command.js';
import { argumentsProblem, findCommand } from '../../../src/cli/commands/index.js';
import { listDeliveriesCommand } from '../../../src/cli/commands/webhooks-deliveries.command.js';
import { showDeliveryCommand } from '../../../src/cli/commands/webhooks-delivery.command.js';
import { redeliverCommand } from '../../../src/cli/commands/webhooks-redeliver.command.js';
import { removeWebhookCommand } from '../../../src/cli/commands/webhooks-remove.command.js';
import { setWebhookCommand } from '../../../src/cli/commands/webhooks-set.command.js';
import { captureOutput } from '../../../src/cli/output.js';
import type { Database } from '../../../src/database/database.js';
import { WebhookDeliveriesService } from '../../../src/webhooks/delivery/webhook-deliveries.service.js';
import { webhookEndpointCheck } from '../../../src/webhooks/webhook-endpoint-check.js';
import { WebhookSignal } from '../../../src/webhooks/webhook-signal.js';
import type { HostResolver } from '../../../src/webhooks/webhook-target.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';
import { runBuiltCli } from '../../support/process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PUBLIC_TARGET = 'https://93.184.215.14/hooks/ferry';
const production = { allowInsecureLocalTargets: false };
const FAILED_ONE = [{ statusCode: 502, error: 'HTTP 502', excerpt: 'bad gateway' }];

/** Splits a table line into its cells (columns are separated by two spaces or more). */
const cells = (line: string) => line.trim().split(/\s{2,}/);

/** DNS from a table (no network in tests). */
const dns: HostResolver = async (host) => {
  const table: Record<string, string[]> = {
    'hooks.acme.example': ['93.184.215.14'],
    'intranet.acme.example': ['10.20.30.40'],
  };
  if (!table[host]) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return table[host];
};

interface Seeded {
  readonly id: string;
  readonly webhookId: string;
  readonly requestId: string;
  readonly body: string;
}

/** A delivery as the outbox writer and a dispatcher would have left it, with its attempt log. */
async function seedDelivery(
  db: Database,
  seed: {
    apiKeyId: string;
    state: 'pending' | 'delivered' | 'failed';
    createdAt: Date;
    status?: string;
    attempts?: { statusCode: number | null; error: string | null; excerpt: string | null }[];
  },
): Promise<Seeded> {
  const id = randomUUID();
  const webhookId = `whk_${randomBytes(16).toString('hex')}`;
  const requestId = `0x${randomBytes(32).toString('hex')}`;
  const status = seed.status ?? 'failure';
  const body = JSON.stringify({ event: 'request.status.updated', data: { status, requestId } });
  const attempts = seed.attempts ?? [];
  const last = attempts.at(-1);
  const at = (i: number) => new Date(seed.createdAt.getTime() + (i + 1) * 1000).toISOString();
  await db.query(
    `INSERT INTO webhook_deliveries (id, webhook_id, event_id, api_key_id, request_id, sequence, status, body, state,
       attempts, next_attempt_at, event_created_at, created_at, last_attempt_at, last_status_code, last_error)
     VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $10, $10, $10, $11, $12, $13)`,
    [
      id,
      webhookId,
      randomUUID(),
      seed.apiKeyId,
      requestId,
      status,
      body,
      seed.state,
      attempts.length,
      seed.createdAt.toISOString(),
      attempts.length ? at(attempts.length - 1) : null,
      last?.statusCode ?? null,
      last?.error ?? null,
    ],
  );
  for (const [i, attempt] of attempts.entries()) {
    await db.query(
      `INSERT INTO webhook_attempts (delivery_id, attempt, attempted_at, status_code, latency_ms, error, response_excerpt)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [id, i + 1, at(i), attempt.statusCode, 40 + i, attempt.error, attempt.excerpt],
    );
  }
  return { id, webhookId, requestId, body };
}

describe('the webhooks CLI commands against PostgreSQL', () => {
  let database: MigratedDatabase;
  let apiKeys: ApiKeysService;
  let deliveries: WebhookDeliveriesService;
  const secret = randomBytes(32);

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    apiKeys = new ApiKeysService(database.db, {
      apiKeys: { encryptionKey: secret, defaultRateLimitPerMinute: 600, anonymousRateLimitPerMinute: 0 },
    });
    deliveries = new WebhookDeliveriesService(database.db, new WebhookSignal());
  });
  afterAll(async () => {
    await database?.close();
  });

  describe('webhooks:set and webhooks:remove', () => {
    it('sets an endpoint with headers (names printed, values never), by id or prefix', async () => {
      const key = await apiKeys.create({ label: 'Acme wallet' });
      const output = captureOutput();
      const code = await setWebhookCommand(
        { apiKeys, policy: production, resolve: dns },
        [
          key.id,
          '--url',
          'https://hooks.acme.example/ferry',
          '--header',
          'X-Tenant: acme',
          '--header=Authorization: Bearer receiver-secret',
        ],
        output,
      );
      expect(code).toBe(0);
      expect(output.stderr).toEqual([]);
      expect(output.stdout).toEqual([
        `Webhook endpoint of API key ${key.id} (${key.keyPrefix}…, "Acme wallet") set`,
        '  url:      https://hooks.acme.example/ferry',
        '  headers:  Authorization, X-Tenant',
        '  state:    enabled',
      ]);
      expect(output.stdout.join('\n')).not.toContain('receiver-secret');
      expect(await apiKeys.get(key.id)).toMatchObject({
        webhookUrl: 'https://hooks.acme.example/ferry',
        webhookHeaders: { 'X-Tenant': 'acme', Authorization: 'Bearer receiver-secret' },
      });

      const byPrefix = captureOutput();
      expect(
        await setWebhookCommand(
          { apiKeys, policy: production, resolve: dns },
          [key.keyPrefix, '--url', PUBLIC_TARGET],
          byPrefix,
        ),
      ).toBe(0);
      expect(byPrefix.stdout[2]).toBe('  headers:  -');
      expect(await apiKeys.get(key.id)).toMatchObject({ webhookUrl: PUBLIC_TARGET, webhookHeaders: {} });
    });

    it('refuses a target the policy refuses, with the reason and exit 1, leaving the key as it was', async () => {
      const key = await apiKeys.create({ label: 'refused', webhookUrl: PUBLIC_TARGET });
      const cases: [string[], string][] = [
        [
          ['--url', 'https://10.0.0.1/hook'],
          'Refused webhook URL: 10.0.0.1 is a private address (10.0.0.0/8)',
        ],
        [
          ['--url', 'https://169.254.169.254/latest'],
          'Refused webhook URL: 169.254.169.254 is a metadata address (169.254.169.254/32)',
        ],
        [
          ['--url', 'https://intranet.acme.example/'],
          'Refused webhook URL: intranet.acme.example resolves to 10.20.30.40, which is a private address (10.0.0.0/8)',
        ],
        [['--url', 'http://hooks.acme.example/'], 'Refused webhook URL: must use https (got http)'],
        [['--url', 'http://127.0.0.1:9/'], 'Refused webhook URL: must use https (got http)'],
        [
          ['--url', PUBLIC_TARGET, '--header', 'X-Signature-SHA256: forged'],
          'Refused webhook headers: X-Signature-SHA256 cannot be set: the webhook sender sets it',
        ],
        [
          ['--url', PUBLIC_TARGET, '--header', 'x-webhook-id: forged'],
          'Refused webhook headers: x-webhook-id cannot be set: the webhook sender sets it',
        ],
      ];
      for (const [args, message] of cases) {
        const output = captureOutput();
        expect(
          await setWebhookCommand({ apiKeys, policy: production, resolve: dns }, [key.id, ...args], output),
        ).toBe(1);
        expect(output).toMatchObject({ stdout: [], stderr: [message] });
      }
      expect((await apiKeys.get(key.id))?.webhookUrl).toBe(PUBLIC_TARGET);

      // The development allowance lets loopback through, and nothing else.
      const dev = { allowInsecureLocalTargets: true };
      expect(
        await setWebhookCommand(
          { apiKeys, policy: dev, resolve: dns },
          [key.id, '--url', 'http://127.0.0.1:9/'],
          captureOutput(),
        ),
      ).toBe(0);
      expect(
        await setWebhookCommand(
          { apiKeys, policy: dev, resolve: dns },
          [key.id, '--url', 'https://10.0.0.1/'],
          captureOutput(),
        ),
      ).toBe(1);
    });

    it('refuses bad arguments before touching anything, and an unknown key with exit 1', async () => {
      const deps = { apiKeys, policy: production, resolve: dns };
      const problems: [string[], string][] = [
        [['--url', PUBLIC_TARGET], 'Name one API key (its id or fk_… prefix)'],
        [[randomUUID()], '--url is required'],
        [[randomUUID(), '--url'], '--url needs a value'],
        [[randomUUID(), '--url', PUBLIC_TARGET, '--url', PUBLIC_TARGET], '--url is given twice'],
        [
          [randomUUID(), '--url', PUBLIC_TARGET, '--header', 'no colon'],
          '--header needs "Name: value" (got "no colon")',
        ],
        [
          [randomUUID(), '--url', PUBLIC_TARGET, '--header', 'A: 1', '--header', 'a: 2'],
          '--header a is given twice',
        ],
        [[randomUUID(), '--url', PUBLIC_TARGET, '--verbose'], 'Unknown option --verbose'],
      ];
      for (const [args, problem] of problems) {
        const output = captureOutput();
        expect(await setWebhookCommand(deps, args, output)).toBe(1);
        expect(output.stderr[0]).toBe(problem);
        expect(argumentsProblem(findCommand('webhooks:set')!, args)).toMatch(
          new RegExp(`^${problem.replace(/[()|.*+?[\]]/g, '\\$&')}\\. Options:`),
        );
      }
      const unknown = captureOutput();
      expect(await setWebhookCommand(deps, ['fk_0000000', '--url', PUBLIC_TARGET], unknown)).toBe(1);
      expect(unknown).toMatchObject({ stdout: [], stderr: ['No API key matches fk_0000000'] });
    });

    it('removes an endpoint; an unknown key exits 1', async () => {
      const key = await apiKeys.create({
        label: 'remove me',
        webhookUrl: PUBLIC_TARGET,
        webhookHeaders: { Authorization: 'Bearer t' },
      });
      const output = captureOutput();
      expect(await removeWebhookCommand({ apiKeys }, key.keyPrefix, output)).toBe(0);
      expect(output.stdout).toEqual([
        `Webhook endpoint of API key ${key.id} (${key.keyPrefix}…, "remove me") removed`,
      ]);
      expect(await apiKeys.get(key.id)).toMatchObject({ webhookUrl: null, webhookHeaders: {} });
      const unknown = captureOutput();
      expect(await removeWebhookCommand({ apiKeys }, randomUUID(), unknown)).toBe(1);
      expect(unknown.stderr[0]).toMatch(/^No API key matches /);
    });

    it('api-keys:create --webhook-url goes through the same check: a refused URL creates no key', async () => {
      const before = (await apiKeys.list()).length;
      const deps = {
        apiKeys,
        defaultRateLimitPerMinute: 600,
        checkWebhook: webhookEndpointCheck(production, dns),
      };
      const refused = captureOutput();
      expect(
        await createApiKeyCommand(deps, ['--label', 'x', '--webhook-url', 'https://10.0.0.1/hook'], refused),
      ).toBe(1);
      expect(refused).toMatchObject({
        stdout: [],
        stderr: [
          'Cannot create the API key: Refused webhook URL: 10.0.0.1 is a private address (10.0.0.0/8)',
        ],
      });
      const header = captureOutput();
      expect(
        await createApiKeyCommand(
          deps,
          ['--label', 'x', '--webhook-url', PUBLIC_TARGET, '--webhook-header', 'X-Webhook-Id: mine'],
          header,
        ),
      ).toBe(1);
      expect(header.stderr).toEqual([
        'Cannot create the API key: webhookHeaders may not set X-Webhook-Id: the webhook sender sets it',
      ]);
      // The earlier validation still speaks first.
      const ftp = captureOutput();
      expect(await createApiKeyCommand(deps, ['--label', 'x', '--webhook-url', 'ftp://nope'], ftp)).toBe(1);
      expect(ftp.stderr).toEqual(['Cannot create the API key: webhookUrl must use http or https (got ftp:)']);
      expect((await apiKeys.list()).length).toBe(before);

      const accepted = captureOutput();
      expect(
        await createApiKeyCommand(
          deps,
          ['--label', 'ok', '--webhook-url', 'https://hooks.acme.example/x'],
          accepted,
        ),
      ).toBe(0);
      expect((await apiKeys.list()).length).toBe(before + 1);
    });
  });

  describe('webhooks:deliveries, webhooks:delivery, webhooks:redeliver', () => {
    const FAILED = [
      { statusCode: 500, error: 'HTTP 500', excerpt: '{"error":"boom"}\r\n\u001b[31mred\u001b[0m' },
      { statusCode: null, error: 'connect ECONNREFUSED 93.184.215.14:443', excerpt: null },
    ];

    it('lists the log as a table, newest first, with filters; bad filters exit 1', async () => {
      const key = await apiKeys.create({ label: 'log' });
      const failed = await seedDelivery(database.db, {
        apiKeyId: key.id,
        state: 'failed',
        createdAt: new Date('2026-04-01T10:00:00Z'),
        attempts: FAILED,
      });
      const delivered = await seedDelivery(database.db, {
        apiKeyId: key.id,
        state: 'delivered',
        status: 'success',
        createdAt: new Date('2026-04-01T11:00:00Z'),
        attempts: [{ statusCode: 204, error: null, excerpt: null }],
      });
      const output = captureOutput();
      expect(await listDeliveriesCommand({ deliveries }, ['--key', key.id], output)).toBe(0);
      expect(cells(output.stdout[0])).toEqual([
        'ID',
        'WEBHOOK ID',
        'KEY',
        'REQUEST',
        'STATUS',
        'STATE',
        'ATTEMPTS',
        'LAST',
        'CREATED',
      ]);
      expect(output.stdout.slice(1).map(cells)).toEqual([
        [
          delivered.id,
          delivered.webhookId,
          key.id,
          delivered.requestId,
          'success',
          'delivered',
          '1',
          '204',
          '2026-04-01T11:00:00Z',
        ],
        [
          failed.id,
          failed.webhookId,
          key.id,
          failed.requestId,
          'failure',
          'failed',
          '2',
          'connect ECONNREFUSED 93.184.215.14:443',
          '2026-04-01T10:00:00Z',
        ],
      ]);

      const onlyFailed = captureOutput();
      expect(await listDeliveriesCommand({ deliveries }, ['--failed', '--key', key.id], onlyFailed)).toBe(0);
      expect(onlyFailed.stdout.slice(1).map((line) => cells(line)[0])).toEqual([failed.id]);
      const byState = captureOutput();
      await listDeliveriesCommand({ deliveries }, ['--state=delivered', `--key=${key.id}`], byState);
      expect(byState.stdout.slice(1).map((line) => cells(line)[0])).toEqual([delivered.id]);
      const byRequest = captureOutput();
      await listDeliveriesCommand({ deliveries }, ['--request', failed.requestId], byRequest);
      expect(byRequest.stdout.slice(1).map((line) => cells(line)[0])).toEqual([failed.id]);
      const since = captureOutput();
      await listDeliveriesCommand(
        { deliveries },
        ['--key', key.id, '--since', '2026-04-01T10:30:00Z'],
        since,
      );
      expect(since.stdout.slice(1).map((line) => cells(line)[0])).toEqual([delivered.id]);
      const limited = captureOutput();
      await listDeliveriesCommand({ deliveries }, ['--key', key.id, '--limit', '1'], limited);
      expect(limited.stdout).toHaveLength(2);
      const none = captureOutput();
      expect(await listDeliveriesCommand({ deliveries }, ['--key', randomUUID()], none)).toBe(0);
      expect(none.stdout).toEqual(['No webhook deliveries match.']);

      const bad: [string[], string][] = [
        [['--failed', '--state', 'pending'], 'Give --failed or --state, not both'],
        [['--state', 'lost'], '--state must be one of pending, delivered, failed (got "lost")'],
        [['--since', 'yesterday'], '--since must be an ISO 8601 date'],
        [['--limit', '0'], '--limit must be a whole number from 1 to 1000 (got "0")'],
        [['--key', 'fk_abcdefg'], 'apiKeyId must be an API key id (UUID)'],
        [['extra'], 'Unexpected argument "extra"'],
      ];
      for (const [args, problem] of bad) {
        const output = captureOutput();
        expect(await listDeliveriesCommand({ deliveries }, args, output)).toBe(1);
        expect(output.stderr[0]).toContain(problem);
        expect(output.stdout).toEqual([]);
      }
    });

    it('shows one delivery with its attempt log, receiver text made safe for a terminal', async () => {
      const key = await apiKeys.create({ label: 'details' });
      const seeded = await seedDelivery(database.db, {
        apiKeyId: key.id,
        state: 'failed',
        createdAt: new Date('2026-04-02T10:00:00Z'),
        attempts: FAILED,
      });
      for (const id of [seeded.id, seeded.webhookId]) {
        const output = captureOutput();
        expect(await showDeliveryCommand({ deliveries }, id, output)).toBe(0);
        expect(output.stdout).toEqual([
          `Delivery ${seeded.id}`,
          `  webhook id:    ${seeded.webhookId}`,
          `  API key:       ${key.id}`,
          `  request:       ${seeded.requestId}`,
          '  status:        failure',
          '  state:         failed',
          '  attempts:      2',
          '  created:       2026-04-02T10:00:00Z',
          '  next attempt:  -',
          '  last attempt:  2026-04-02T10:00:02Z',
          '  delivered:     -',
          `  body:          ${seeded.body}`,
          '',
          'Attempts (2):',
          '  #1  2026-04-02T10:00:01Z  HTTP 500  40 ms  error: HTTP 500',
          '      response: {"error":"boom"}\\r\\n\\u001b[31mred\\u001b[0m',
          '  #2  2026-04-02T10:00:02Z  no answer  41 ms  error: connect ECONNREFUSED 93.184.215.14:443',
        ]);
        expect(output.stdout.join('')).not.toContain('\u001b');
      }
      const unknown = captureOutput();
      expect(await showDeliveryCommand({ deliveries }, randomUUID(), unknown)).toBe(1);
      expect(unknown.stderr[0]).toMatch(/^No webhook delivery /);
    });

    it('redelivers one (by id or webhook id) → pending with a fresh budget; pending again → exit 1', async () => {
      const key = await apiKeys.create({ label: 'redeliver one' });
      const seeded = await seedDelivery(database.db, {
        apiKeyId: key.id,
        state: 'failed',
        createdAt: new Date('2026-04-03T10:00:00Z'),
        attempts: FAILED,
      });
      const output = captureOutput();
      expect(await redeliverCommand({ deliveries }, [seeded.webhookId], output)).toBe(0);
      expect(output.stdout).toEqual([
        `Queued delivery ${seeded.id} (${seeded.webhookId}, failure of ${seeded.requestId}) again`,
      ]);
      expect(await deliveries.get(seeded.id)).toMatchObject({ state: 'pending', attempts: 0 });

      const again = captureOutput();
      expect(await redeliverCommand({ deliveries }, [seeded.id], again)).toBe(1);
      expect(again.stderr[0]).toMatch(/still pending/);
      const unknown = captureOutput();
      expect(await redeliverCommand({ deliveries }, [randomUUID()], unknown)).toBe(1);
      expect(unknown.stderr[0]).toMatch(/^No webhook delivery /);
    });

    it('redelivers every failed delivery since a time (of one key or all) and counts them', async () => {
      const since = new Date('2032-01-01T00:00:00Z');
      const a = await apiKeys.create({ label: 'bulk a' });
      const b = await apiKeys.create({ label: 'bulk b' });
      const after = (minutes: number) => new Date(since.getTime() + minutes * 60_000);
      const aFailed = await seedDelivery(database.db, {
        apiKeyId: a.id,
        state: 'failed',
        createdAt: after(1),
      });
      const bFailed = await seedDelivery(database.db, {
        apiKeyId: b.id,
        state: 'failed',
        createdAt: after(2),
      });
      const old = await seedDelivery(database.db, { apiKeyId: a.id, state: 'failed', createdAt: after(-1) });
      await seedDelivery(database.db, { apiKeyId: a.id, state: 'delivered', createdAt: after(3) });

      const onlyB = captureOutput();
      expect(
        await redeliverCommand({ deliveries }, ['--failed', '--since', '2032-01-01', '--key', b.id], onlyB),
      ).toBe(0);
      expect(onlyB.stdout).toEqual([
        `Queued 1 failed delivery of API key ${b.id} created since 2032-01-01T00:00:00.000Z again`,
      ]);
      const all = captureOutput();
      expect(await redeliverCommand({ deliveries }, ['--failed', '--since=2032-01-01T00:00:00Z'], all)).toBe(
        0,
      );
      expect(all.stdout).toEqual(['Queued 1 failed delivery created since 2032-01-01T00:00:00.000Z again']);
      const none = captureOutput();
      await redeliverCommand({ deliveries }, ['--failed', '--since', '2032-01-01T00:00:00Z'], none);
      expect(none.stdout).toEqual([
        'Queued 0 failed deliveries created since 2032-01-01T00:00:00.000Z again',
      ]);

      expect(await deliveries.get(aFailed.id)).toMatchObject({ state: 'pending', attempts: 0 });
      expect(await deliveries.get(bFailed.id)).toMatchObject({ state: 'pending', attempts: 0 });
      expect(await deliveries.get(old.id)).toMatchObject({ state: 'failed' });

      const bad: [string[], string][] = [
        [[], 'Name one delivery'],
        [['--failed'], '--failed needs --since <iso>'],
        [['--failed', '--since', 'last week'], '--since must be an ISO 8601 date'],
        [['--since', '2032-01-01'], '--since and --key go with --failed'],
        [[randomUUID(), '--failed', '--since', '2032-01-01'], 'Give a delivery id or --failed, not both'],
        [['a', 'b'], 'Name one delivery'],
      ];
      for (const [args, problem] of bad) {
        const output = captureOutput();
        expect(await redeliverCommand({ deliveries }, args, output)).toBe(1);
        expect(output.stderr[0]).toContain(problem);
        expect(argumentsProblem(findCommand('webhooks:redeliver')!, args)).toContain(problem);
      }
      const badKey = captureOutput();
      expect(
        await redeliverCommand(
          { deliveries },
          ['--failed', '--since', '2032-01-01', '--key', 'nope'],
          badKey,
        ),
      ).toBe(1);
      expect(badKey.stderr).toEqual(['apiKeyId must be an API key id (UUID)']);
    });
  });

  describe('the real process (node dist/src/cli/main.js)', () => {
    const cli = (args: string[]) =>
      runBuiltCli(args, { DATABASE_URL: database.url!, API_KEY_ENCRYPTION_KEY: secret.toString('hex') });

    beforeAll(() => {
      if (!existsSync(`${ROOT}dist/src/cli/main.js`)) {
        throw new Error('dist/src/cli/main.js is missing: run the suite through `npm test`, which builds it');
      }
    });

    it('sets, lists, redelivers and removes through the real commands', async () => {
      const key = await apiKeys.create({ label: 'From the shell' });
      const set = await cli([
        'webhooks:set',
        key.id,
        '--url',
        PUBLIC_TARGET,
        '--header',
        'Authorization: Bearer s3cret',
      ]);
      expect(set).toMatchObject({ code: 0, stderr: '' });
      expect(set.stdout).toContain('headers:  Authorization');
      expect(set.stdout).not.toContain('s3cret');

      const refused = await cli(['webhooks:set', key.id, '--url', 'https://10.0.0.1/hook']);
      expect(refused).toMatchObject({
        code: 1,
        stderr: 'Refused webhook URL: 10.0.0.1 is a private address (10.0.0.0/8)\n',
      });
      const created = await cli([
        'api-keys:create',
        '--label',
        'refused at birth',
        '--webhook-url',
        'https://169.254.169.254/',
      ]);
      expect(created.code).toBe(1);
      expect(created.stderr).toContain(
        'Cannot create the API key: Refused webhook URL: 169.254.169.254 is a metadata address',
      );
      expect((await apiKeys.list()).some((k) => k.label === 'refused at birth')).toBe(false);

      const seeded = await seedDelivery(database.db, {
        apiKeyId: key.id,
        state: 'failed',
        createdAt: new Date('2026-04-05T10:00:00Z'),
        attempts: FAILED_ONE,
      });
      const listed = await cli(['webhooks:deliveries', '--failed', '--key', key.id]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(seeded.webhookId);
      const shown = await cli(['webhooks:delivery', seeded.webhookId]);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('#1  2026-04-05T10:00:01Z  HTTP 502');
      expect(await cli(['webhooks:redeliver', seeded.id])).toMatchObject({ code: 0, stderr: '' });
      expect(await deliveries.get(seeded.id)).toMatchObject({ state: 'pending' });

      expect(await cli(['webhooks:remove', key.keyPrefix])).toMatchObject({ code: 0, stderr: '' });
      expect((await apiKeys.get(key.id))?.webhookUrl).toBeNull();
    });

    it('checks the arguments before opening anything', async () => {
      const run = await cli(['webhooks:redeliver', '--failed']);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^--failed needs --since <iso>.*\nUsage: npm run cli -- webhooks:redeliver /,
      );
      expect(await cli(['webhooks:remove'])).toMatchObject({
        code: 1,
        stderr: 'Usage: npm run cli -- webhooks:remove <apiKeyId|prefix>\n',
      });
      const help = await cli(['help']);
      for (const name of [
        'webhooks:set',
        'webhooks:remove',
        'webhooks:deliveries',
        'webhooks:delivery',
        'webhooks:redeliver',
      ]) {
        expect(help.stdout).toContain(name);
      }
    });
  });
});
