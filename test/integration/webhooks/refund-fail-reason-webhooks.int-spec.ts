import type { Address, Hex } from 'viem';
import { type CreatedApiKey, ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type { Database } from '../../../src/database/database.js';
import { verifyWebhook } from '../../../src/webhooks/index.js';
import type { TestApp } from '../../support/app.js';
import { type ChainClients, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startSettlementSuite, stopSettlementSuite } from '../../support/settlement-suite.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import {
  deployGasBurner,
  depositNativeFor,
  ethQuoteBody,
  freshRecipient,
  type Quote,
  solverJobOf,
  waitForRefundDone,
  waitForWatcherRound,
} from '../settlement/settlement-support.js';

interface Delivered {
  readonly webhookId: string;
  readonly status: string;
  readonly failReason: string;
  readonly refundFailReason: string;
}

/**
 * A request's refund leg fails while its status stays `failure`: its deposit is worth less than a refund's gas
 * (`AMOUNT_TOO_LOW_TO_REFUND`), or its refund cannot be sent (`REFUND_NOT_SENT`). Integrators must learn of it from
 * a webhook, once per change, not only by polling. Played on two real local chains with a real receiver.
 */
describe('webhooks for a refundFailReason recorded while the status stays failure', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  let app: TestApp;
  let db: Database;
  let key: CreatedApiKey;
  let seed = 0x8a;

  beforeAll(async () => {
    ({ a, b, clients, database, app, db } = await startSettlementSuite('ferry_refund_fail_reason_webhooks', {
      WEBHOOK_RETRY_BASE_MS: '20',
      WEBHOOK_RETRY_MAX_MS: '100',
    }));
    receiver = await new WebhookReceiver().start();
    key = await app.app.get(ApiKeysService).create({ label: 'refund-webhooks', webhookUrl: receiver.url });
    await waitForWatcherRound(db, a);
  }, 120_000);
  afterAll(async () => {
    await stopSettlementSuite({ a, b, database, app });
    await receiver?.stop();
  });

  const quote = async (refundTo?: Address): Promise<Hex> => {
    const response = await app.http.inject({
      method: 'POST',
      url: '/quote/v2',
      headers: { 'x-api-key': key.key },
      payload: {
        ...ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(seed++)),
        ...(refundTo ? { refundTo } : {}),
      },
    });
    expect(response.statusCode).toBe(200);
    return (response.json() as Quote).protocol.v2.orderId;
  };
  /** The deliveries received for `requestId`, in the order received (each verified). */
  const deliveredFor = (requestId: string): Delivered[] =>
    receiver.received
      .filter((webhook) => JSON.parse(webhook.body).data.requestId === requestId)
      .map((webhook) => {
        expect(verifyWebhook(webhook.body, webhook.headers, key.key)).toEqual({ ok: true });
        const { data } = JSON.parse(webhook.body);
        return {
          webhookId: String(webhook.headers['x-webhook-id']),
          status: data.status,
          failReason: data.failReason,
          refundFailReason: data.refundFailReason,
        };
      });
  /** Each delivery's status, failReason and refundFailReason for `requestId`, in the order received. */
  const reasonsFor = (requestId: string) =>
    deliveredFor(requestId).map(({ status, failReason, refundFailReason }) => [
      status,
      failReason,
      refundFailReason,
    ]);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

  it('a deposit worth less than its refund’s gas: one more `failure` webhook with AMOUNT_TOO_LOW_TO_REFUND', async () => {
    const id = await quote();
    await depositNativeFor(clients, a, id, 1n);
    await waitForRefundDone(db, id);
    const received = await waitFor(
      async () => {
        const now = deliveredFor(id);
        return now.some((webhook) => webhook.refundFailReason !== 'N/A') ? now : null;
      },
      'a webhook carrying the skipped refund',
      10_000,
    ).catch(() => deliveredFor(id));
    await settle();

    expect(reasonsFor(id)).toEqual([
      ['waiting', 'N/A', 'N/A'],
      ['pending', 'N/A', 'N/A'],
      ['failure', 'DEPOSIT_AMOUNT_TOO_LOW', 'N/A'],
      ['failure', 'DEPOSIT_AMOUNT_TOO_LOW', 'AMOUNT_TOO_LOW_TO_REFUND'],
    ]);
    expect(new Set(received.map((webhook) => webhook.webhookId)).size).toBe(received.length);
  }, 60_000);

  it('a refund that cannot be sent (its refundTo burns more gas than a payment may): one `failure` webhook with REFUND_NOT_SENT, however often it is retried', async () => {
    // A payment to it needs about 300,000 gas, over the journal's PAYMENT_GAS_CAP: the refund is never sent.
    const burner = await deployGasBurner(clients, a, 10_000);
    const id = await quote(burner);
    await depositNativeFor(clients, a, id, 10n ** 16n);
    const attempts = async () => (await solverJobOf(db, id, 'refund'))?.attempts ?? 0;
    await waitFor(async () => (await attempts()) >= 3, 'the refund to fail three attempts', 20_000);
    await settle();

    expect(reasonsFor(id)).toEqual([
      ['waiting', 'N/A', 'N/A'],
      ['pending', 'N/A', 'N/A'],
      ['failure', 'DEPOSIT_AMOUNT_TOO_LOW', 'N/A'],
      ['failure', 'DEPOSIT_AMOUNT_TOO_LOW', 'REFUND_NOT_SENT'],
    ]);
  }, 60_000);
});
