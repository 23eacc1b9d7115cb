import { CommandBus } from '@nestjs/cqrs';
import { ACCRUAL_CONSUMER } from '../../../src/app-fees/app-fee-accrual.js';
import type { AppFeeAccruedData } from '../../../src/app-fees/domain/app-fee-account-events.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import { ExecuteRequestCommand } from '../../../src/requests/commands/execute-request.command.js';
import type { SponsorshipPhase } from '../../../src/requests/domain/records.js';
import type { FillSucceededData, RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import { Decimal, toUnits } from '../../../src/quotes/domain/pricing/decimal.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { waitFor } from '../../support/chain-clients.js';

const RECIPIENT = '0x00000000000000000000000000000000000007a1';
const SPONSOR = '0x00000000000000000000000000000000000007a2';

/**
 * Attack: an integrator whose key sponsors fees from Ferry's own cap (fee sponsorship, no sponsor address) quotes with
 * `subsidizeFees` and app fees to itself. The `app` component is then paid by Ferry, not by the user; crediting it in
 * full turns Ferry's sponsorship into withdrawable app fees. Only the part the user paid accrues; app fees a
 * sponsor's own balance paid accrue in full. Requests recorded through the Request aggregate (PostgreSQL, no chains).
 */
describe('app fees sponsored from Ferry’s cap do not accrue', () => {
  let app: TestApp;
  let db: Database;
  let store: EventStore;
  let n = 900;

  /** A successful request paying 1% of app fees to RECIPIENT, half or all of its app fee sponsored. */
  const succeed = async (sponsoredHalves: 1n | 2n, sponsor: boolean): Promise<RequestQuotedData> => {
    n += 1;
    const sample = sampleQuote(n, { appFeeBps: 100 });
    const appFees = sample.appFees.map((fee) => ({ ...fee, recipient: RECIPIENT }));
    const total = appFees[0].amount;
    const sponsored = ((BigInt(total) * sponsoredHalves) / 2n).toString();
    const userPays = (BigInt(total) - BigInt(sponsored)).toString();
    const none = { selected: false, total: '0', sponsored: '0', userPays: '0' };
    const amount = (units: string) => ({
      ...sample.currencyIn,
      amount: units,
      amountFormatted: units,
      amountUsd: units,
    });
    const feeSponsorship: SponsorshipPhase = {
      selectedComponents: ['app'],
      capHit: false,
      components: {
        execution: none,
        swap: none,
        platform: none,
        rent: none,
        app: { selected: true, total, sponsored, userPays },
      },
      sponsoredTotal: amount(sponsored),
      userPaysTotal: amount(userPays),
      maxSubsidizationAmount: '100000000',
    };
    const quote: RequestQuotedData = {
      ...sample,
      appFees,
      feeSponsorship,
      sponsorshipCurrency: sample.currencyIn.currency,
      ...(sponsor ? { sponsor: { address: SPONSOR, chainId: 31338, amount: sponsored } } : {}),
    };
    for (const command of sampleLifecycle(quote, n)) {
      await app.app.get(CommandBus).execute(new ExecuteRequestCommand(quote.requestId, command));
    }
    return quote;
  };
  const settled = async () => {
    await waitForProjections(app);
    const head = await store.headPosition();
    await waitFor(
      async () => {
        const { rows } = await db.query<{ prepare_position: string }>(
          'SELECT prepare_position::text FROM projection_checkpoints WHERE name = $1',
          [ACCRUAL_CONSUMER],
        );
        return rows[0] !== undefined && BigInt(rows[0].prepare_position) >= head.prepare;
      },
      'the accrual consumer',
      20_000,
    );
  };
  const accrued = async (requestId: string) =>
    (await store.readStream(`app-fee-account-${RECIPIENT}`))
      .filter((event) => event.type === 'AppFeeAccrued')
      .map((event) => event.data as AppFeeAccruedData)
      .find((data) => data.requestId === requestId);

  /** The app fee the fill recorded, in USD, as USDC units at 1 USD. */
  const feeUnits = async (requestId: string) => {
    const fill = (await store.readStream(`request-${requestId}`)).find(
      (event) => event.type === 'FillSucceeded',
    )!;
    return toUnits(Decimal.parse((fill.data as FillSucceededData).appFees[0].amountUsd), 6, 'floor');
  };

  beforeAll(async () => {
    app = await startTestApp();
    db = app.app.get(DATABASE);
    store = app.app.get(EVENT_STORE);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('credits nothing of an app fee Ferry’s cap paid, the user’s part of a half-sponsored one, all of a sponsor-paid one', async () => {
    const whole = await succeed(2n, false);
    const half = await succeed(1n, false);
    const byBalance = await succeed(2n, true);
    await settled();
    await waitFor(async () => (await accrued(byBalance.requestId)) !== undefined, 'the accruals', 20_000);
    expect(await accrued(whole.requestId)).toBeUndefined();
    // The fill values the app fee in USD (the sample's own price): half of it, then all of it, in USDC units at 1 USD.
    expect(BigInt((await accrued(half.requestId))!.amount)).toBe((await feeUnits(half.requestId)) / 2n);
    expect(BigInt((await accrued(byBalance.requestId))!.amount)).toBe(await feeUnits(byBalance.requestId));
  });
});
