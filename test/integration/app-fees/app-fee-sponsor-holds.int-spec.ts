import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type { AppFeeSponsorshipPaidData } from '../../../src/app-fees/domain/app-fee-account-events.js';
import { AppFeeAccountAggregate } from '../../../src/app-fees/domain/app-fee-account.aggregate.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import { appFeesAvailable, startTestApp, type TestApp } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestEnded,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { deposit, freshRecipient, type Quote } from '../settlement/settlement-support.js';

const SPONSOR = freshRecipient(0x71).toLowerCase();
/** A sponsor that claims its balance between a quote and its fill (`freshRecipient(0x79)`'s key). */
const CLAIMER = privateKeyToAccount(`0x${'79'.repeat(32)}`);
/** The balance each sponsor earns: 1 bps of a 100 USDC bridge, less than one quote's fees. */
const B = 10_000n;
/** What the claimer earns after its quote, so its claim is worth its payout's gas. */
const EXTRA = 1_000_000n;

interface SponsoredQuote extends Quote {
  feeSponsorship: { quoted: { capHit: boolean; sponsoredTotal: { amount: string } } };
}

/**
 * Attack: a sponsor balance B counted by every quote. An integrator with fee sponsorship paid from a balance of B takes
 * k quotes before any is filled; each is sponsored up to B, since each sees the whole balance. Before holds, all k were
 * filled on sponsored terms while the account paid B once (the rest recorded as `shortfall`, funded by Ferry's solver).
 * Now each fill holds its sponsorship on the account before the solver pays: the fills the balance no longer covers
 * are refunded in full (`SPONSORSHIP_NOT_COVERED`). Real devnets, the real solver and treasury.
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
  const available = (address: string) => appFeesAvailable(app, address);
  const ended = (id: Hex) => requestEnded(app, id);
  const sponsorPayments = async () =>
    (await store.readStream(`app-fee-account-${SPONSOR}`))
      .filter((event) => event.type === 'AppFeeSponsorshipPaid')
      .map((event) => event.data as AppFeeSponsorshipPaidData);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    store = app.app.get(EVENT_STORE);
    // Each sponsor earns B = 0.01 USDC of app fees (1 bps of 100 USDC): less than one quote's fees.
    const { body } = await postJson(
      app,
      '/quote/v2',
      usdcBridge('100000000', freshRecipient(0x72), {
        appFees: [
          { recipient: SPONSOR, fee: '1' },
          { recipient: CLAIMER.address, fee: '1' },
        ],
      }),
    );
    await deposit(clients, a, body as Quote);
    await ended((body as Quote).protocol.v2.orderId);
    await waitFor(async () => (await available(SPONSOR)) === B, 'the sponsor balance', 30_000);
    await waitFor(async () => (await available(CLAIMER.address)) === B, 'the claimer balance', 30_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  /** `k` quotes of a 10 USDC bridge with the sponsoring key, each to a fresh recipient: all sponsored with all of B. */
  const sponsoredQuotes = async (key: string, k: number, seed: number) => {
    const recipients = Array.from({ length: k }, (_, i) => freshRecipient(seed + i));
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
    return { recipients, quotes };
  };
  /** The request's deposit went back in full, on the origin chain, to its refund recipient (fresh per quote). */
  const refundedInFull = async (quote: Quote) => {
    const stream = await store.readStream(`request-${quote.protocol.v2.orderId.toLowerCase()}`);
    const refund = stream.find((event) => event.type === 'RefundSucceeded')!.data as {
      amount: string;
      chainId: number;
      recipient: Address;
    };
    expect(refund).toMatchObject({ amount: quote.details.currencyIn.amount, chainId: a.chainId });
    expect(await usdcOf(a, refund.recipient)).toBe(BigInt(quote.details.currencyIn.amount));
  };
  const usdcOf = (chain: Devnet, owner: Address) =>
    clients.balanceOf(chain.chainId, chain.deployment.usdc, owner);

  it('k quotes each sponsored with the whole balance B: one is filled and paid from B, the others are refunded in full', async () => {
    const k = 3;
    const { key } = await app.app.get(ApiKeysService).create({
      label: 'over-committing sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: SPONSOR,
    });
    const { recipients, quotes } = await sponsoredQuotes(key, k, 0x73);
    const solver = a.accounts.solver.address;
    const solverBefore = await usdcOf(b, solver);
    for (const quote of quotes) await deposit(clients, a, quote);
    const outcomes = await Promise.all(quotes.map((quote) => ended(quote.protocol.v2.orderId)));

    // As many are filled on sponsored terms as the balance covers: one. The others are refunded, with the reason.
    expect(outcomes.filter((outcome) => outcome === 'success')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'refund')).toHaveLength(k - 1);
    const filled = outcomes.indexOf('success');
    for (const [i, quote] of quotes.entries()) {
      if (i === filled) continue;
      expect((await requestStatus(app, quote.protocol.v2.orderId)).failReason).toBe(
        'SPONSORSHIP_NOT_COVERED',
      );
      expect(await usdcOf(b, recipients[i])).toBe(0n);
    }
    // On chain: the solver paid the one filled request's quoted output and nothing else; the k − 1 others got their
    // deposits back in full.
    const received = await usdcOf(b, recipients[filled]);
    expect(received).toBe(BigInt(quotes[filled].details.currencyOut.amount));
    expect(solverBefore - (await usdcOf(b, solver))).toBe(received);
    for (const [i, quote] of quotes.entries()) if (i !== filled) await refundedInFull(quote);
    // The account paid that one sponsorship from its hold, in full: no shortfall for Ferry to fund.
    await waitFor(async () => (await sponsorPayments()).length === 1, 'the sponsor debit', 30_000);
    expect(await sponsorPayments()).toEqual([
      expect.objectContaining({
        sponsoredRequestId: quotes[filled].protocol.v2.orderId,
        amount: B.toString(),
        shortfall: '0',
      }),
    ]);
    expect(await available(SPONSOR)).toBe(0n);
  });

  it('a claim paid between quote and fill: the request the balance no longer covers is refunded, not filled', async () => {
    const { key } = await app.app.get(ApiKeysService).create({
      label: 'claiming sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: CLAIMER.address,
    });
    const {
      recipients: [recipient],
      quotes: [quote],
    } = await sponsoredQuotes(key, 1, 0x7a);
    // Its balance grows by a later app fee (1 USDC) before it claims: a claim of B (0.01 USDC) alone is worth less
    // than its payout's gas, refused (CLAIM_BELOW_GAS, app-fee-claim-gas.int-spec.ts).
    await app.app.get(AggregateRepository).execute(
      () => new AppFeeAccountAggregate(CLAIMER.address),
      (account) =>
        account.handle({
          type: 'AccrueAppFee',
          data: {
            requestId: `0x${'7b'.repeat(32)}`,
            amount: EXTRA.toString(),
            amountUsd: '1',
            usdcPrice: '1',
            accruedAt: new Date().toISOString(),
            source: { commit: '999999999999', prepare: '999999999999' },
          },
        }),
    );
    // The sponsor claims its whole balance, signed, and is paid on the base chain.
    const opened = await postJson(app, `/app-fees/${CLAIMER.address}/claim`, {
      chainId: b.chainId,
      currency: b.deployment.usdc,
    });
    expect(opened.code).toBe(200);
    const claimId = (opened.body as { steps: { requestId: Hex }[] }).steps[0].requestId;
    const signature = await CLAIMER.signMessage({ message: { raw: claimId } });
    const paid = await postJson(app, `/execute/permits?signature=${signature}`, {
      kind: 'claim',
      requestId: claimId,
    });
    expect(paid.body).toMatchObject({ status: 'paid' });
    expect(await usdcOf(b, CLAIMER.address)).toBe(B + EXTRA);

    await deposit(clients, a, quote);
    expect(await ended(quote.protocol.v2.orderId)).toBe('refund');
    expect((await requestStatus(app, quote.protocol.v2.orderId)).failReason).toBe('SPONSORSHIP_NOT_COVERED');
    expect(await usdcOf(b, recipient)).toBe(0n);
    await refundedInFull(quote);
    const events = (await store.readStream(`app-fee-account-${CLAIMER.address.toLowerCase()}`)).map(
      (e) => e.type,
    );
    expect(events).not.toContain('AppFeeSponsorshipHeld');
    expect(events).not.toContain('AppFeeSponsorshipPaid');
  });
});
