import type { Address, Hex } from 'viem';
import type { privateKeyToAccount } from 'viem/accounts';
import { CommandBus } from '@nestjs/cqrs';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import type {
  AppFeeSponsorshipPaidData,
  AppFeeSponsorshipReleasedData,
} from '../../../src/app-fees/domain/app-fee-account-events.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import { ExecuteRequestCommand } from '../../../src/requests/commands/execute-request.command.js';
import { appFeesAvailable, startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, postJson, requestEnded, settlementEnv, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { RpcProxy } from '../../support/rpc-proxy.js';
import {
  deposit,
  eventTypesOf,
  freshRecipient,
  journalOf,
  type Quote,
} from '../settlement/settlement-support.js';
import { permitUser, signPermit } from '../../support/permits.js';

const SPONSOR = freshRecipient(0x91).toLowerCase();
/** A second sponsor with the same balance, for the hold a permit leaves behind. */
const IDLE_SPONSOR = freshRecipient(0xa1).toLowerCase();
/** The sponsor's balance: 1 bps of a 100 USDC bridge, less than one quote's fees. */
const B = 10_000n;

/**
 * Attack: make Ferry's relayer and solver pay gas for sponsored requests that can never be filled. An API key whose
 * fee sponsorship is paid from a small app-fee balance B hands out k gasless (`usePermit`) quotes, each sponsored with
 * all of B (every quote sees the whole balance), and their k users post their permits at once. Without a hold at
 * permit time, the relayer pays the gas of k permit deposits, then k − 1 fills find B taken, fail
 * (`SPONSORSHIP_NOT_COVERED`) and the solver pays the gas of k − 1 refunds: Ferry's gas, for nothing. The sponsorship
 * must be held before the relayer spends anything, and a permit the sponsor no longer covers refused (409
 * `SPONSORSHIP_NOT_COVERED`), nothing journaled and no event appended. Real devnets, relayer, solver and treasury.
 */
describe('sponsored gasless permits the sponsor cannot cover (attack)', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let db: Database;
  let store: EventStore;
  let proxy: RpcProxy;
  /** Chain a's RPC answers an error to the `eth_call` whose 1-based number (counted from 0 when set) this is. */
  let failEthCall: { number: number; seen: number } | null = null;
  let seed = 0x92;

  const usdcBridge = (user: Address, amount: bigint, extra: Record<string, unknown> = {}) => ({
    user,
    recipient: freshRecipient(seed++),
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: a.deployment.usdc,
    destinationCurrency: b.deployment.usdc,
    amount: amount.toString(),
    tradeType: 'EXACT_INPUT',
    ...extra,
  });
  const available = (address: string) => appFeesAvailable(app, address);
  const ended = (id: Hex) => requestEnded(app, id);
  /** A fresh user holding `usdc` of chain a's USDC and no ether: it can only deposit through a permit. */
  const fundedUser = (usdc: bigint) => permitUser(clients, a, seed++, usdc);
  /**
   * A `usePermit` quote for `user`, sponsored by `key` when one is given (each sees the sponsor's whole balance, so
   * it is sponsored with all of B), signed: the permit ready to post. A fresh user holding the amount by default.
   */
  const signedPermit = async (
    key: string | null,
    amount: bigint,
    user?: ReturnType<typeof privateKeyToAccount>,
  ) => {
    user ??= await fundedUser(amount);
    const response = await app.http.inject({
      method: 'POST',
      url: '/quote/v2',
      headers: key ? { 'x-api-key': key } : {},
      payload: usdcBridge(user.address, amount, { usePermit: true, ...(key ? { subsidizeFees: true } : {}) }),
    });
    expect(response.statusCode).toBe(200);
    const quote = response.json() as {
      feeSponsorship: { quoted: { capHit: boolean; sponsoredTotal: { amount: string } } };
    };
    if (key) expect(BigInt(quote.feeSponsorship.quoted.sponsoredTotal.amount)).toBe(B);
    const permit = await signPermit(quote, user);
    return {
      id: permit.id,
      validBefore: permit.validBefore,
      execute: () => postJson(app, permit.path, permit.body),
    };
  };
  const accountEvents = async (sponsor: string, type: string) =>
    (await store.readStream(`app-fee-account-${sponsor}`)).filter((event) => event.type === type);
  const sponsorPayments = async () =>
    (await accountEvents(SPONSOR, 'AppFeeSponsorshipPaid')).map(
      (event) => event.data as AppFeeSponsorshipPaidData,
    );
  const relayerNonce = () =>
    clients.reader(a.chainId).getTransactionCount({ address: a.accounts.relayer.address });

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    proxy = new RpcProxy(a.rpcUrl, (method) => {
      if (method !== 'eth_call' || !failEthCall) return null;
      failEthCall.seen += 1;
      return failEthCall.seen === failEthCall.number
        ? { kind: 'error', message: 'upstream connect error' }
        : null;
    });
    app = await startTestApp(
      settlementEnv(a, b, {
        DEVNET_A_RPC_URL: await proxy.start(),
        RELAYER_PRIVATE_KEY: a.accounts.relayer.privateKey,
      }),
    );
    db = app.app.get(DATABASE);
    store = app.app.get(EVENT_STORE);
    // Each sponsor earns B = 0.01 USDC of app fees (1 bps of 100 USDC).
    const { body } = await postJson(
      app,
      '/quote/v2',
      usdcBridge(a.accounts.user.address, 100_000_000n, {
        appFees: [
          { recipient: SPONSOR, fee: '1' },
          { recipient: IDLE_SPONSOR, fee: '1' },
        ],
      }),
    );
    await deposit(clients, a, body as Quote);
    await ended((body as Quote).protocol.v2.orderId);
    await waitFor(async () => (await available(SPONSOR)) === B, 'the sponsor balance', 30_000);
    await waitFor(async () => (await available(IDLE_SPONSOR)) === B, 'the idle sponsor balance', 30_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await proxy?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('k permits posted at once, each sponsored with all of B: one is relayed, the others refused before the relayer pays gas', async () => {
    const k = 3;
    const { key } = await app.app.get(ApiKeysService).create({
      label: 'over-committing gasless sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: SPONSOR,
    });
    const permits = [];
    for (let i = 0; i < k; i += 1) permits.push(await signedPermit(key, 10_000_000n));
    const nonceBefore = await relayerNonce();

    const answers = await Promise.all(permits.map((permit) => permit.execute()));

    // The balance covers one: that permit is relayed, the others are refused with the reason, and cost nothing.
    const accepted = answers.filter((answer) => answer.code === 200);
    expect(accepted).toHaveLength(1);
    const refused = answers.filter((answer) => answer.code !== 200);
    expect(refused).toHaveLength(k - 1);
    for (const answer of refused) {
      expect(answer).toMatchObject({ code: 409, body: { errorCode: 'SPONSORSHIP_NOT_COVERED' } });
    }
    const relayed = permits[answers.findIndex((answer) => answer.code === 200)];
    for (const permit of permits.filter((permit) => permit !== relayed)) {
      expect(await journalOf(db, permit.id)).toEqual([]);
      expect(await eventTypesOf(db, permit.id)).toEqual(['RequestQuoted']);
    }
    // On chain: the relayer sent one transaction, the accepted permit's deposit (no filler, no reverted deposit).
    expect((await relayerNonce()) - nonceBefore).toBe(1);

    // The relayed request is filled on sponsored terms, paid from its hold in full; nothing is refunded.
    expect(await ended(relayed.id)).toBe('success');
    await waitFor(async () => (await sponsorPayments()).length === 1, 'the sponsor debit', 30_000);
    expect(await sponsorPayments()).toEqual([
      expect.objectContaining({ sponsoredRequestId: relayed.id, amount: B.toString(), shortfall: '0' }),
    ]);
    expect(await available(SPONSOR)).toBe(0n);
    for (const permit of permits) {
      expect(await eventTypesOf(db, permit.id)).not.toContain('RefundSubmitted');
    }
  });

  it('a hold taken for a permit that never lands is given back when its quote expires: the balance is never locked for ever', async () => {
    const { key } = await app.app.get(ApiKeysService).create({
      label: 'idle gasless sponsor',
      feeSponsorshipEnabled: true,
      sponsorAddress: IDLE_SPONSOR,
    });
    // A user with 4 USDC and a permit of 2 in flight (unsponsored), then a sponsored permit of 2: funded, so the
    // sponsorship is held; the chain's RPC then fails as the relayer reads the balance again, under its lock.
    const user = await fundedUser(4_000_000n);
    const first = await signedPermit(null, 2_000_000n, user);
    const sponsored = await signedPermit(key, 2_000_000n, user);
    await a.setAutomine(false);
    try {
      expect((await first.execute()).code).toBe(200);
      failEthCall = { number: 2, seen: 0 };
      expect(await sponsored.execute()).toMatchObject({
        code: 400,
        body: { errorCode: 'CHAIN_RPC_UNAVAILABLE' },
      });
    } finally {
      failEthCall = null;
      await a.setAutomine(true);
      await a.mine(1);
    }
    expect(await journalOf(db, sponsored.id)).toEqual([]);
    expect(await eventTypesOf(db, sponsored.id)).toEqual(['RequestQuoted']);
    expect((await accountEvents(IDLE_SPONSOR, 'AppFeeSponsorshipHeld')).map((e) => e.data)).toEqual([
      expect.objectContaining({ sponsoredRequestId: sponsored.id, amount: B.toString() }),
    ]);
    expect(await available(IDLE_SPONSOR)).toBe(0n);

    // The user walks away. The sweeper expires the quote at its expiry (as it would, at that time): the hold goes back.
    await app.app
      .get(CommandBus)
      .execute(
        new ExecuteRequestCommand(
          sponsored.id,
          { type: 'ExpireRequest', data: { at: new Date((sponsored.validBefore + 1) * 1000).toISOString() } },
          { actor: 'deadline-sweeper' },
        ),
      );
    await waitFor(async () => (await available(IDLE_SPONSOR)) === B, 'the hold to be given back', 30_000);
    expect((await accountEvents(IDLE_SPONSOR, 'AppFeeSponsorshipReleased')).map((e) => e.data)).toEqual([
      expect.objectContaining({
        sponsoredRequestId: sponsored.id,
        amount: B.toString(),
        reason: 'QUOTE_EXPIRED',
      } satisfies Partial<AppFeeSponsorshipReleasedData>),
    ]);
    // The expired quote takes no permit any more, so nothing can be filled on the hold given back.
    expect(await sponsored.execute()).toMatchObject({ code: 409, body: { errorCode: 'CONFLICT' } });
    expect(await journalOf(db, sponsored.id)).toEqual([]);
  });
});
