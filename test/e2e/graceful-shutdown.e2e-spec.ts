import { CommandBus } from '@nestjs/cqrs';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import { sampleLifecycle, sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { startTestApp } from '../support/app.js';
import { freePort, spawnNode } from '../support/process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'cd'.repeat(32);
const REQUESTS = 12;
const RECEIVER_DELAY_MS = 1500;
const EXIT_BOUND_MS = 15_000;

const QUOTE = JSON.stringify({
  user: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  originChainId: 31337,
  destinationChainId: 31338,
  originCurrency: '0x0000000000000000000000000000000000000000',
  destinationCurrency: '0x0000000000000000000000000000000000000000',
  amount: '1000000000000000',
  tradeType: 'EXACT_INPUT',
});

/** What one HTTP request came to: an answer, a refused connection (never accepted), or a dropped one. */
type Outcome =
  | { kind: 'answered'; status: number; body: string; sentAt: number }
  | { kind: 'refused'; sentAt: number }
  | { kind: 'dropped'; error: string; sentAt: number };

/** One request on its own connection (no keep-alive reuse to race with the server's close). */
function post(port: number, path: string, body: string): Promise<Outcome> {
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ kind: 'answered', status: res.statusCode ?? 0, body: text, sentAt }));
        res.on('error', (error) => resolve({ kind: 'dropped', error: error.message, sentAt }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === 'ECONNREFUSED'
          ? { kind: 'refused', sentAt }
          : { kind: 'dropped', error: `${error.code ?? ''} ${error.message}`, sentAt },
      ),
    );
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('graceful shutdown of the API process', () => {
  it('on SIGTERM mid-load: answers what it accepted, finishes in-flight deliveries, loses none, exits 0', async () => {
    const receiver = await new WebhookReceiver().start();
    receiver.onRequest = () => sleep(RECEIVER_DELAY_MS);
    const env = { API_KEY_ENCRYPTION_KEY: SECRET, WEBHOOKS_RUN: 'false' };
    const setup = await startTestApp(env);
    const { database } = setup;
    const db = new pg.Client({ connectionString: database.url });
    let child: ReturnType<typeof spawnNode> | undefined;
    try {
      // Deliveries queued for a slow receiver: several status updates for each of REQUESTS requests.
      const key = await setup.app.get(ApiKeysService).create({ label: 'shutdown', webhookUrl: receiver.url });
      for (let n = 0; n < REQUESTS; n += 1) {
        const quote = sampleQuote(700 + n, { apiKeyId: key.id });
        for (const command of sampleLifecycle(quote, 700 + n).slice(0, 3)) {
          await setup.app.get(CommandBus).execute(new ExecuteRequestCommand(quote.requestId, command));
        }
      }
      await setup.app.close();

      const port = await freePort();
      child = spawnNode('dist/src/main.js', [], {
        ...env,
        WEBHOOKS_RUN: 'true',
        ENVIRONMENT: 'test',
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'fatal',
      });
      const started = Date.now();
      while ((await post(port, '/health', '{}')).kind === 'refused') {
        if (Date.now() - started > 30_000) throw new Error(`the API did not start: ${child.stderr()}`);
        await sleep(100);
      }
      // Deliveries are in flight (the receiver holds each for RECEIVER_DELAY_MS).
      await receiver.waitFor(3, 20_000);

      // Quotes from 6 clients, each sending the next once answered, until the process has gone.
      const outcomes: Outcome[] = [];
      let stopped = false;
      const clients = Array.from({ length: 6 }, async () => {
        while (!stopped) {
          const outcome = await post(port, '/quote/v2', QUOTE);
          outcomes.push(outcome);
          if (outcome.kind !== 'answered') break;
        }
      });
      await sleep(400);
      const receivedBeforeSigterm = receiver.received.map((webhook) => webhook.headers['x-webhook-id']);
      const sigtermAt = Date.now();
      child.child.kill('SIGTERM');
      let bound: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        child.exited,
        new Promise((resolve) => (bound = setTimeout(() => resolve('timeout'), EXIT_BOUND_MS))),
      ]);
      clearTimeout(bound);
      const exitedAfterMs = Date.now() - sigtermAt;
      stopped = true;
      await Promise.all(clients);

      expect({ code, stderr: child.stderr() }).toEqual({ code: 0, stderr: '' });
      expect(exitedAfterMs).toBeLessThan(EXIT_BOUND_MS);
      // Every request sent before SIGTERM was answered (quoted, or refused with a status), none dropped.
      const before = outcomes.filter((outcome) => outcome.sentAt < sigtermAt);
      expect(before.length).toBeGreaterThan(6);
      expect(before.filter((outcome) => outcome.kind !== 'answered')).toEqual([]);
      expect(
        before.filter((outcome) => outcome.kind === 'answered' && outcome.status === 200).length,
      ).toBeGreaterThan(0);
      // From SIGTERM on, no new work is taken: 503 SERVICE_UNAVAILABLE (Connection: close) while the workers drain,
      // then refused (or reset, for a connection caught by the listener's close: it was never read, so never served).
      const after = outcomes.filter((outcome) => outcome.sentAt > sigtermAt + 200);
      expect(after.length).toBeGreaterThan(0);
      const answeredAfter = after.filter(
        (outcome): outcome is Extract<Outcome, { kind: 'answered' }> => outcome.kind === 'answered',
      );
      expect(answeredAfter.map((outcome) => outcome.status)).toEqual(answeredAfter.map(() => 503));
      // Ferry's body while the workers drain (Fastify's own 503 body in the last moments of its close).
      expect(
        answeredAfter.map((outcome) => JSON.parse(outcome.body) as { errorCode?: string }),
      ).toContainEqual(expect.objectContaining({ errorCode: 'SERVICE_UNAVAILABLE' }));

      // The outbox: no delivery is left leased; the ones in flight at SIGTERM were finished (delivered); every
      // attempt counted is in the attempt log.
      await db.connect();
      const { rows } = await db.query<{
        webhook_id: string;
        state: string;
        leased: boolean;
        attempts: number;
        logged: number;
      }>(
        `SELECT d.webhook_id, d.state, d.leased_until IS NOT NULL AND d.leased_until > now() AS leased, d.attempts,
                (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
           FROM webhook_deliveries d`,
      );
      expect(rows.length).toBeGreaterThanOrEqual(REQUESTS);
      expect(rows.filter((row) => row.leased)).toEqual([]);
      expect(rows.filter((row) => !['delivered', 'pending'].includes(row.state))).toEqual([]);
      for (const row of rows) expect(row.logged).toBe(row.attempts);
      for (const webhookId of receivedBeforeSigterm) {
        expect(rows.find((row) => row.webhook_id === webhookId)?.state).toBe('delivered');
      }
      const pendingAfterStop = rows.filter((row) => row.state === 'pending').length;

      // The next instance delivers the rest: nothing was lost.
      receiver.onRequest = null;
      const next = await startTestApp({ ...env, WEBHOOKS_RUN: 'true' }, [], undefined, database);
      try {
        for (let i = 0; i < 400; i += 1) {
          const left = await db.query("SELECT 1 FROM webhook_deliveries WHERE state <> 'delivered'");
          if (left.rowCount === 0) break;
          await sleep(50);
        }
        const states = await db.query<{ state: string; n: number }>(
          'SELECT state, count(*)::int AS n FROM webhook_deliveries GROUP BY state',
        );
        expect(states.rows).toEqual([{ state: 'delivered', n: rows.length }]);
        expect(pendingAfterStop).toBeGreaterThan(0);
      } finally {
        await next.app.close();
      }
    } finally {
      child?.child.kill('SIGKILL');
      await db.end().catch(() => undefined);
      await receiver.stop();
      await database.drop();
    }
  }, 120_000);
});
