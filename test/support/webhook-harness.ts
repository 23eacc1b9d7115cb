import { CommandBus } from '@nestjs/cqrs';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import type { RequestCommand } from '../../src/requests/domain/request-decide.js';
import { sampleLifecycle, sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp } from './app.js';
import { WebhookReceiver } from './webhook-receiver.js';

/** An app with webhooks on, one API key whose endpoint is a real loopback receiver, and the delivery table. */
export interface WebhookHarness {
  app: TestApp;
  receiver: WebhookReceiver;
  key: { id: string; key: string };
  run(requestId: string, command: RequestCommand): Promise<unknown>;
  deliveries(): Promise<{ state: string; attempts: number; last_error: string | null }[]>;
  close(): Promise<void>;
}

let counter = 500;

/** The next sample number: distinct request ids across every harness of a test file. */
export const nextSample = (): number => (counter += 1);

export async function webhookHarness(env: Record<string, string> = {}): Promise<WebhookHarness> {
  const receiver = await new WebhookReceiver().start();
  const app = await startTestApp({ WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '100', ...env });
  const key = await app.app.get(ApiKeysService).create({
    label: 'integrator',
    webhookUrl: receiver.url,
    webhookHeaders: { 'X-Integrator': 'acme' },
  });
  return {
    app,
    receiver,
    key,
    run: (requestId, command) =>
      app.app.get(CommandBus).execute(new ExecuteRequestCommand(requestId, command)),
    deliveries: async () =>
      (
        await app.app
          .get<Database>(DATABASE)
          .query<{ state: string; attempts: number; last_error: string | null }>(
            'SELECT state, attempts, last_error FROM webhook_deliveries ORDER BY created_at',
          )
      ).rows,
    async close() {
      await app.close();
      await receiver.stop();
    },
  };
}

/**
 * Runs a sample request's commands, up to `upTo` of them (1 = quote only … 5 = success), quoted with `apiKeyId`
 * (the harness's key by default). Returns the quote and its sample number (for `sampleLifecycle`).
 */
export async function driveRequest(
  h: WebhookHarness,
  upTo = 5,
  options: { referrer?: string; apiKeyId?: string } = {},
) {
  const n = nextSample();
  const quote = sampleQuote(n, {
    apiKeyId: options.apiKeyId ?? h.key.id,
    referrer: options.referrer ?? null,
    withDepositAddress: n % 2 === 0,
  });
  for (const command of sampleLifecycle(quote, n).slice(0, upTo)) await h.run(quote.requestId, command);
  return Object.assign(quote, { sample: n });
}

export const waitUntil = async (check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
