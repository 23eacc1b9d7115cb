import { CommandBus } from '@nestjs/cqrs';
import pg from 'pg';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import { sampleLifecycle, sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { startTestApp } from '../support/app.js';
import { freePort, spawnNode } from '../support/process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET = 'ab'.repeat(32);

describe('webhook delivery across a crash', () => {
  it('delivers after a dispatcher is killed mid-delivery: at least once, with the same X-Webhook-Id', async () => {
    const receiver = await new WebhookReceiver().start();
    // A short lease (the survivor waits it out), so a short timeout and DNS bound: start-up refuses a lease an attempt
    // can outlast.
    const env = {
      API_KEY_ENCRYPTION_KEY: SECRET,
      WEBHOOK_TIMEOUT_MS: '300',
      WEBHOOK_DNS_TIMEOUT_MS: '100',
      WEBHOOK_LEASE_MS: '1500',
      WEBHOOKS_RUN: 'false',
    };
    const setup = await startTestApp(env);
    const { database } = setup;
    let child: ReturnType<typeof spawnNode> | undefined;
    try {
      const key = await setup.app.get(ApiKeysService).create({ label: 'crash', webhookUrl: receiver.url });
      const quote = sampleQuote(900, { apiKeyId: key.id });
      for (const command of sampleLifecycle(quote, 900).slice(0, 2)) {
        await setup.app.get(CommandBus).execute(new ExecuteRequestCommand(quote.requestId, command));
      }
      await setup.app.close();

      // A real API process picks the delivery up; the receiver holds the request open and the process is killed.
      receiver.replies = ['hang'];
      const killed = new Promise<void>((resolve) => {
        receiver.onRequest = () => {
          child?.child.kill('SIGKILL');
          resolve();
        };
      });
      child = spawnNode('dist/src/main.js', [], {
        ...env,
        WEBHOOKS_RUN: 'true',
        ENVIRONMENT: 'test',
        DATABASE_URL: database.url,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'fatal',
      });
      await killed;
      expect(await child.exited).toBe('SIGKILL');
      receiver.onRequest = null;

      const db = new pg.Client({ connectionString: database.url });
      await db.connect();
      const before = await db.query('SELECT state, attempts FROM webhook_deliveries');
      expect(before.rows).toEqual([{ state: 'pending', attempts: 1 }]);

      // Another instance finds the delivery once the dead one's lease has expired.
      const survivor = await startTestApp(
        { ...env, WEBHOOKS_RUN: 'true', DATABASE_URL: database.url },
        [],
        undefined,
        database,
      );
      try {
        await receiver.waitFor(2, 20_000);
        const [first, second] = receiver.received;
        expect(second.headers['x-webhook-id']).toBe(first.headers['x-webhook-id']);
        expect(second.body).toBe(first.body);
        expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1400);
        for (let i = 0; i < 100; i += 1) {
          const { rows } = await db.query('SELECT state, attempts FROM webhook_deliveries');
          if (rows[0].state === 'delivered') break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect((await db.query('SELECT state, attempts FROM webhook_deliveries')).rows).toEqual([
          { state: 'delivered', attempts: 2 },
        ]);
      } finally {
        await db.end();
        await survivor.app.close();
      }
    } finally {
      child?.child.kill('SIGKILL');
      await receiver.stop();
      await database.drop();
    }
  });
});
