import type { Hex } from 'viem';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { ACCRUAL_CONSUMER } from '../../../src/app-fees/app-fee-accrual.js';
import { AppFeesWorker } from '../../../src/app-fees/app-fees.worker.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { Decimal, toUnits } from '../../../src/quotes/domain/pricing/decimal.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { deposit, freshRecipient, type Quote } from '../settlement/settlement-support.js';

const SPONSOR = freshRecipient(0x6a).toLowerCase();
const EMPTY_SPONSOR = freshRecipient(0x6b).toLowerCase();

interface SponsoredQuote extends Quote {
  feeSponsorship: { quoted: { capHit: boolean; sponsoredTotal: { amount: string; amountUsd: string } } };
}
interface RecordV3 {
  data: {
    feeSponsorship: {
      actual: { sponsorPayment: { amount: string; address: string; chainId: number } } | null;
    } | null;
  };
}

/**
 * Fee sponsorship paid from an app-fee balance: a key with a sponsor address sponsors no more than that balance holds
 * (`capHit` when it holds less), the filled request records `feeSponsorship.actual.sponsorPayment`, and the balance
 * is debited once, even when the log is read again.
 */
describe('fee sponsorship paid from an app-fee balance', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let db: Database;

  const usdcBridge = (amount: string, extra: Record<string, unknown> = {}) => ({
    user: a.accounts.user.address,
    recipient: freshRecipient(0x6c),
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: a.deployment.usdc,
    destinationCurrency: b.deployment.usdc,
    amount,
    tradeType: 'EXACT_INPUT',
    ...extra,
  });
  const quoteWithKey = async (key: string, body: unknown) => {
    const response = await app.http.inject({
      method: 'POST',
      url: '/quote/v2',
      headers: { 'x-api-key': key },
      payload: body as object,
    });
    return { code: response.statusCode, body: response.json() as SponsoredQuote };
  };
  const available = async (address: string) => {
    await waitForProjections(app);
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
    return BigInt((response.json() as { balances: { amount: string }[] }).balances[0].amount);
  };
  const settle = async (id: Hex) => {
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success', 60_000);
  };

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    db = app.app.get(DATABASE);
    // The sponsor earns 1 USDC of app fees first.
    const { body } = await postJson(
      app,
      '/quote/v2',
      usdcBridge('100000000', { appFees: [{ recipient: SPONSOR, fee: '100' }] }),
    );
    const quote = body as Quote;
    await deposit(clients, a, quote);
    await settle(quote.protocol.v2.orderId);
    await waitFor(async () => (await available(SPONSOR)) === 1_000_000n, 'the sponsor balance', 30_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('pays the sponsored fees of a filled request from the sponsor balance, once, and records sponsorPayment', async () => {
    const { key } = await app.app.get(ApiKeysService).create({
      label: 'sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: SPONSOR,
    });
    const { code, body: quote } = await quoteWithKey(key, usdcBridge('10000000', { subsidizeFees: true }));
    expect(code).toBe(200);
    expect(quote.feeSponsorship.quoted.capHit).toBe(false);
    expect(BigInt(quote.feeSponsorship.quoted.sponsoredTotal.amount)).toBeGreaterThan(0n);
    const id = quote.protocol.v2.orderId;
    await deposit(clients, a, quote);
    await settle(id);

    await waitForProjections(app);
    const response = await app.http.inject({
      method: 'GET',
      url: `/requests/v3?id=${id}`,
      headers: { 'x-api-key': key },
    });
    const [record] = (response.json() as { requests: RecordV3[] }).requests;
    const payment = record.data.feeSponsorship!.actual!.sponsorPayment;
    expect(payment).toEqual({
      amount: expect.stringMatching(/^[1-9][0-9]*$/),
      address: SPONSOR,
      chainId: b.chainId,
    });
    // The sponsored USD value in USDC units at 1 USD, rounded up (the sponsor is charged).
    const usd = quote.feeSponsorship.quoted.sponsoredTotal.amountUsd;
    expect(BigInt(payment.amount)).toBe(toUnits(Decimal.parse(usd), 6, 'ceil'));
    await waitFor(async () => (await available(SPONSOR)) < 1_000_000n, 'the sponsor debit', 30_000);
    expect(await available(SPONSOR)).toBe(1_000_000n - BigInt(payment.amount));

    // Reading the whole log again (a restart before the checkpoint) debits nothing twice.
    await db.query(
      'UPDATE projection_checkpoints SET commit_position = 0, prepare_position = 0 WHERE name = $1',
      [ACCRUAL_CONSUMER],
    );
    const worker = app.app.get(AppFeesWorker);
    while (await worker.accrual.step()) {
      /* read the whole log again */
    }
    expect(await available(SPONSOR)).toBe(1_000_000n - BigInt(payment.amount));
  });

  it('sponsors nothing past an empty sponsor balance: capHit', async () => {
    const { key } = await app.app.get(ApiKeysService).create({
      label: 'empty sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: EMPTY_SPONSOR,
    });
    const { code, body } = await quoteWithKey(key, usdcBridge('10000000', { subsidizeFees: true }));
    expect(code).toBe(200);
    expect(body.feeSponsorship.quoted.capHit).toBe(true);
    expect(body.feeSponsorship.quoted.sponsoredTotal.amount).toBe('0');
  });

  it('attack: app fees to itself sponsored from Ferry’s cap (no sponsor address) accrue only what the user paid', async () => {
    const self = freshRecipient(0x6d).toLowerCase();
    const { key } = await app.app
      .get(ApiKeysService)
      .create({ label: 'cap sponsor', feeSponsorshipEnabled: true });
    const { code, body: quote } = await quoteWithKey(
      key,
      usdcBridge('10000000', { subsidizeFees: true, appFees: [{ recipient: self, fee: '100' }] }),
    );
    expect(code).toBe(200);
    const app_ = (
      quote as unknown as {
        feeSponsorship: { quoted: { components: Record<string, { sponsored: string; userPays: string }> } };
      }
    ).feeSponsorship.quoted.components.app;
    expect(BigInt(app_.sponsored)).toBeGreaterThan(0n);
    await deposit(clients, a, quote);
    await settle(quote.protocol.v2.orderId);
    await waitForProjections(app);
    const worker = app.app.get(AppFeesWorker);
    while (await worker.accrual.step()) {
      /* the fill's accrual */
    }
    // 1% of 10 USDC is 0.1 USDC of app fee; Ferry's cap paid `sponsored` of it, the user `userPays`.
    expect(await available(self)).toBe(BigInt(app_.userPays));
  });
});
