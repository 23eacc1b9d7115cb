import { CommandBus } from '@nestjs/cqrs';
import { findProjection } from '../../../projections/index.js';
import { auditProjection } from '../../../projections/runner/audit.js';
import { ACCRUAL_CONSUMER } from '../../../src/app-fees/app-fee-accrual.js';
import { AppFeesWorker } from '../../../src/app-fees/app-fees.worker.js';
import { AppFeeAccountAggregate } from '../../../src/app-fees/domain/app-fee-account.aggregate.js';
import {
  type AppFeeAccountState,
  availableBalance,
  heldTotal,
} from '../../../src/app-fees/domain/app-fee-account-state.js';
import { actualSponsorship } from '../../../src/app-fees/sponsor-payment.js';
import { SponsorHolds } from '../../../src/app-fees/sponsor-holds.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import { ExecuteRequestCommand } from '../../../src/requests/commands/execute-request.command.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import type { SponsorshipPhase } from '../../../src/requests/domain/records.js';
import type { RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { waitFor } from '../../support/chain-clients.js';

const T0 = '2026-11-25T03:00:00.000Z';

/**
 * The sponsor's holds on the account aggregate (PostgreSQL, no chains; requests recorded through the Request aggregate
 * as the solver would): concurrent holds of one account never take more than its balance, a retried hold takes
 * nothing more, a request that ends without a fill gives its hold back exactly once (whichever of the two the log
 * shows first), a filled one is paid from its hold, and the balances projection replays to the same rows.
 */
describe(SponsorHolds.name, () => {
  let app: TestApp;
  let db: Database;
  let store: EventStore;
  let accounts: AggregateRepository;
  let sut: SponsorHolds;
  let n = 7_000;

  const run = async (requestId: string, commands: readonly RequestCommand[]) => {
    for (const command of commands) {
      await app.app.get(CommandBus).execute(new ExecuteRequestCommand(requestId, command));
    }
  };
  /** A sponsor with `amount` USDC units of app fees. */
  const sponsorWith = async (amount: bigint): Promise<string> => {
    n += 1;
    const address = `0x${n.toString(16).padStart(40, '0')}`;
    await accounts.execute(
      () => new AppFeeAccountAggregate(address),
      (account) =>
        account.handle({
          type: 'AccrueAppFee',
          data: {
            requestId: `0xearned${n}`,
            amount: amount.toString(),
            amountUsd: '0',
            usdcPrice: '1',
            accruedAt: T0,
            source: { commit: '0', prepare: String(n) },
          },
        }),
    );
    return address;
  };
  /** A quote sponsored by `sponsor` for `amount`, recorded up to its confirmed deposit (`pending`: what a fill holds). */
  const pending = async (
    sponsor: string,
    amount: bigint,
  ): Promise<{ quote: RequestQuotedData; rest: RequestCommand[] }> => {
    n += 1;
    const sample = sampleQuote(n, { appFeeBps: 0 });
    const none = { selected: false, total: '0', sponsored: '0', userPays: '0' };
    const usdc = (units: string) => ({
      ...sample.currencyIn,
      amount: units,
      amountFormatted: units,
      amountUsd: units,
    });
    const feeSponsorship: SponsorshipPhase = {
      selectedComponents: ['execution'],
      capHit: true,
      components: {
        execution: { selected: true, total: amount.toString(), sponsored: amount.toString(), userPays: '0' },
        swap: none,
        platform: none,
        rent: none,
        app: none,
      },
      sponsoredTotal: usdc(amount.toString()),
      userPaysTotal: usdc('0'),
      maxSubsidizationAmount: amount.toString(),
    };
    const quote: RequestQuotedData = {
      ...sample,
      feeSponsorship,
      sponsorshipCurrency: sample.currencyIn.currency,
      sponsor: { address: sponsor, chainId: 31338, amount: amount.toString() },
    };
    const lifecycle = sampleLifecycle(quote, n);
    await run(quote.requestId, lifecycle.slice(0, 3));
    return { quote, rest: lifecycle.slice(3) };
  };
  const account = async (address: string): Promise<AppFeeAccountState> =>
    (await accounts.load(() => new AppFeeAccountAggregate(address))).state;
  const typesOf = async (address: string) =>
    (await store.readStream(`app-fee-account-${address}`)).map((event) => event.type);
  /** The accrual consumer (this app's loop, or this call) has read the log to its head. */
  const consume = async () => {
    const head = await store.headPosition();
    const worker = app.app.get(AppFeesWorker);
    await waitFor(
      async () => {
        await worker.accrual.step();
        const { rows } = await db.query<{ commit_position: string; prepare_position: string }>(
          'SELECT commit_position::text, prepare_position::text FROM projection_checkpoints WHERE name = $1',
          [ACCRUAL_CONSUMER],
        );
        if (!rows[0]) return false;
        // Positions order by (transaction id, global position).
        const commit = BigInt(rows[0].commit_position);
        return (
          commit > head.commit || (commit === head.commit && BigInt(rows[0].prepare_position) >= head.prepare)
        );
      },
      'the accrual consumer',
      20_000,
    );
  };
  /** Steps the accrual consumer until `done` (this app's own loop may take the batches meanwhile). */
  const consumeUntil = (done: () => Promise<boolean>, what: string) =>
    waitFor(
      async () => {
        await app.app.get(AppFeesWorker).accrual.step();
        return done();
      },
      what,
      20_000,
    );
  const failFill = (requestId: string) =>
    run(requestId, [
      {
        type: 'RecordFillFailure',
        data: {
          failReason: 'FILL_REVERTED',
          failedTxHash: null,
          failedTxBlockNumber: null,
          failedCallData: null,
          details: 'reverted',
          failedAt: T0,
        },
      },
    ]);

  beforeAll(async () => {
    app = await startTestApp();
    db = app.app.get(DATABASE);
    store = app.app.get(EVENT_STORE);
    accounts = app.app.get(AggregateRepository);
    sut = new SponsorHolds(store);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('concurrent fills of one account hold no more than its balance: 10 requests of 300, a balance of 1,200', async () => {
    const sponsor = await sponsorWith(1_200n);
    const quotes = await Promise.all(Array.from({ length: 10 }, () => pending(sponsor, 300n)));
    const held = await Promise.all(quotes.map(({ quote }) => sut.hold(quote, T0)));
    expect(held.filter(Boolean)).toHaveLength(4);
    expect((await typesOf(sponsor)).filter((type) => type === 'AppFeeSponsorshipHeld')).toHaveLength(4);
    const state = await account(sponsor);
    expect(availableBalance(state)).toBe(0n);
    expect(heldTotal(state)).toBe(1200n);
  });

  it('a fill retried after a crash between its hold and its journal entry holds once and is paid once', async () => {
    const sponsor = await sponsorWith(1_000n);
    const { quote, rest } = await pending(sponsor, 600n);
    expect(await sut.hold(quote, T0)).toBe(true);
    // The crashed attempt's hold is found: the retry takes nothing more, and still may fill.
    expect(await sut.hold(quote, T0)).toBe(true);
    expect(availableBalance(await account(sponsor))).toBe(400n);
    const [submit, success] = rest;
    await run(quote.requestId, [
      submit,
      { ...success, data: { ...success.data, feeSponsorship: actualSponsorship(quote) } } as RequestCommand,
    ]);
    await consumeUntil(async () => (await typesOf(sponsor)).includes('AppFeeSponsorshipPaid'), 'the payment');
    const events = await store.readStream(`app-fee-account-${sponsor}`);
    expect(events.map((event) => event.type)).toEqual([
      'AppFeeAccrued',
      'AppFeeSponsorshipHeld',
      'AppFeeSponsorshipPaid',
    ]);
    expect(events[2].data).toMatchObject({ amount: '600', shortfall: '0' });
    const state = await account(sponsor);
    expect(availableBalance(state)).toBe(400n);
    expect(heldTotal(state)).toBe(0n);
    expect(state.sponsored).toBe('600');
  });

  it('a request whose fill failed gives its hold back exactly once, whichever the log shows first', async () => {
    const sponsor = await sponsorWith(1_000n);
    // Held, then the fill failed (and the deposit was refunded).
    const first = await pending(sponsor, 600n);
    await sut.hold(first.quote, T0);
    await failFill(first.quote.requestId);
    // A stale attempt's hold appended after its request had already failed.
    const second = await pending(sponsor, 400n);
    await failFill(second.quote.requestId);
    await sut.hold(second.quote, T0);

    await consumeUntil(async () => heldTotal(await account(sponsor)) === 0n, 'the releases');
    const state = await account(sponsor);
    expect(availableBalance(state)).toBe(1_000n);
    expect(heldTotal(state)).toBe(0n);
    const released = (await store.readStream(`app-fee-account-${sponsor}`)).filter(
      (event) => event.type === 'AppFeeSponsorshipReleased',
    );
    expect(released.map((event) => event.data)).toEqual([
      expect.objectContaining({
        sponsoredRequestId: first.quote.requestId,
        amount: '600',
        reason: 'FILL_REVERTED',
      }),
      expect.objectContaining({
        sponsoredRequestId: second.quote.requestId,
        amount: '400',
        reason: 'FILL_REVERTED',
      }),
    ]);
    // A released request is never held again: asked again, the hold is its first hold's event by id, stored once.
    const events = (await typesOf(sponsor)).length;
    expect(await sut.hold(first.quote, T0)).toBe(true);
    expect((await typesOf(sponsor)).length).toBe(events);
    expect(availableBalance(await account(sponsor))).toBe(1_000n);

    // Reading the whole log again releases nothing twice.
    const before = (await typesOf(sponsor)).length;
    await db.query(
      'UPDATE projection_checkpoints SET commit_position = 0, prepare_position = 0 WHERE name = $1',
      [ACCRUAL_CONSUMER],
    );
    await consume();
    expect((await typesOf(sponsor)).length).toBe(before);
    expect(availableBalance(await account(sponsor))).toBe(1_000n);
  });

  it('projections:audit reproduces every sponsor balance, holds included, from the log', async () => {
    await waitForProjections(app);
    const audit = await auditProjection(db, store, findProjection('app-fee-balances')!);
    expect(audit.differences).toEqual([]);
    expect(audit.rowsCompared).toBeGreaterThanOrEqual(3);
    const { rows } = await db.query<{ held: string }>(
      'SELECT held::text FROM app_fee_balances WHERE held > 0',
    );
    expect(rows).toEqual([{ held: '1200' }]);
  });
});
