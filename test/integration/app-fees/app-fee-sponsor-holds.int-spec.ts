import type { Address, Hex } from 'viem';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type { AppFeeSponsorshipPaidData } from '../../../src/app-fees/domain/app-fee-account-events.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
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

const SPONSOR = freshRecipient(0x71).toLowerCase();

interface SponsoredQuote extends Quote {
  feeSponsorship: { quoted: { capHit: boolean; sponsoredTotal: { amount: string } } };
}

/**
 * Attack: a sponsor balance B counted by every quote, held by none. An integrator with fee sponsorship paid from a
 * balance of B takes k quotes before any is filled; each is sponsored up to B, since each sees the whole balance.
 */
describe('sponsorship over-commitment (attack)', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let store: EventStore;

  const usdcBridge = (amount: string, recipient: Address, extra: Record<string, unknown> = {}) => ({
    user: a.accounts.user.address,
    recipient,
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: a.deployment.usdc,
    destinationCurrency: b.deployment.usdc,
    amount,
    tradeType: 'EXACT_INPUT',
    ...extra,
  });
  const available = async (address: string) => {
    await waitForProjections(app);
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
    return BigInt((response.json() as { balances: { amount: string }[] }).balances[0].amount);
  };
  const ended = (id: Hex) =>
    waitFor(
      async () => {
        const { status } = await requestStatus(app, id);
        return status === 'success' || status === 'refund' ? status : null;
      },
      `request ${id} to end`,
      90_000,
    );
  const sponsorPayments = async () =>
    (await store.readStream(`app-fee-account-${SPONSOR}`))
      .filter((event) => event.type === 'AppFeeSponsorshipPaid')
      .map((event) => event.data as AppFeeSponsorshipPaidData);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    store = app.app.get(EVENT_STORE);
    // The sponsor earns B = 0.01 USDC of app fees (1 bps of 100 USDC): less than one quote's fees.
    const { body } = await postJson(
      app,
      '/quote/v2',
      usdcBridge('100000000', freshRecipient(0x72), { appFees: [{ recipient: SPONSOR, fee: '1' }] }),
    );
    await deposit(clients, a, body as Quote);
    await ended((body as Quote).protocol.v2.orderId);
    await waitFor(async () => (await available(SPONSOR)) === 10_000n, 'the sponsor balance', 30_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('k quotes each sponsored with the whole balance B, all filled: the solver pays k sponsorships, the account B once', async () => {
    const B = 10_000n;
    const k = 3;
    const { key } = await app.app.get(ApiKeysService).create({
      label: 'over-committing sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: SPONSOR,
    });
    const recipients = Array.from({ length: k }, (_, i) => freshRecipient(0x73 + i));
    const quotes: SponsoredQuote[] = [];
    for (const recipient of recipients) {
      const response = await app.http.inject({
        method: 'POST',
        url: '/quote/v2',
        headers: { 'x-api-key': key },
        payload: usdcBridge('10000000', recipient, { subsidizeFees: true }),
      });
      expect(response.statusCode).toBe(200);
      const quote = response.json() as SponsoredQuote;
      // Every quote sees the whole balance: each is sponsored with all of B.
      expect(quote.feeSponsorship.quoted.capHit).toBe(true);
      expect(BigInt(quote.feeSponsorship.quoted.sponsoredTotal.amount)).toBe(B);
      quotes.push(quote);
    }
    const solver = a.accounts.solver.address;
    const solverBefore = await clients.balanceOf(b.chainId, b.deployment.usdc, solver);
    for (const quote of quotes) await deposit(clients, a, quote);
    const outcomes = await Promise.all(quotes.map((quote) => ended(quote.protocol.v2.orderId)));

    // Today: every request is filled on sponsored terms, the solver pays each one's quoted output on chain…
    expect(outcomes).toEqual(Array(k).fill('success'));
    let paidOut = 0n;
    for (const [i, quote] of quotes.entries()) {
      const received = await clients.balanceOf(b.chainId, b.deployment.usdc, recipients[i]);
      expect(received).toBe(BigInt(quote.details.currencyOut.amount));
      paidOut += received;
    }
    expect(solverBefore - (await clients.balanceOf(b.chainId, b.deployment.usdc, solver))).toBe(paidOut);
    // …while the sponsor's account pays B once; the other k − 1 sponsorships are shortfalls Ferry funded.
    await waitFor(async () => (await sponsorPayments()).length === k, 'the sponsor debits', 30_000);
    const payments = await sponsorPayments();
    expect(payments.reduce((sum, paid) => sum + BigInt(paid.amount), 0n)).toBe(B);
    expect(payments.reduce((sum, paid) => sum + BigInt(paid.shortfall), 0n)).toBe(B * BigInt(k - 1));
    expect(await available(SPONSOR)).toBe(0n);
  });
});
