import {
  appFeeBalancesProjection,
  appFeeClaimsProjection,
} from '../../../projections/app-fee-balances/app-fee-balances.projection.js';
import { eventTypeOf } from '../../../src/event-store/domain-event.js';
import type { RecordedEvent } from '../../../src/event-store/event-store.js';
import { type AppFeeAccountCommand, decide } from '../../../src/app-fees/domain/app-fee-account-decide.js';
import { evolve, initialAppFeeAccountState } from '../../../src/app-fees/domain/app-fee-account-state.js';

const ADDRESS = '0x00000000000000000000000000000000000000aa';
const STREAM = `app-fee-account-${ADDRESS}`;
const T0 = '2026-11-25T03:00:00.000Z';

/** The events the account records for `commands`, as the store hands them to projections. */
function recorded(commands: AppFeeAccountCommand[]): RecordedEvent[] {
  let state = initialAppFeeAccountState;
  const events: RecordedEvent[] = [];
  for (const command of commands) {
    for (const { event, id } of decide(state, command, ADDRESS)) {
      state = evolve(state, event);
      events.push({
        streamId: STREAM,
        revision: BigInt(events.length),
        position: { commit: 1n, prepare: BigInt(events.length + 1) },
        id,
        type: eventTypeOf(event).type,
        schemaVersion: 1,
        data: JSON.parse(JSON.stringify(event)),
        metadata: {},
        createdAt: new Date(T0),
      });
    }
  }
  return events;
}

const OPENED = {
  claimId: '0xc1',
  address: ADDRESS,
  amount: '900',
  chainId: 31338,
  currency: '0xusdc',
  recipient: ADDRESS,
  payoutAmount: '900',
  fee: '0',
  conversion: null,
  openedAt: T0,
  expiresAt: '2026-11-25T03:10:00.000Z',
};
/** `POST …/claim` records the opened claim in its own stream, not the account's. */
const openedEvent: RecordedEvent = {
  streamId: 'app-fee-claim-0xc1',
  revision: 0n,
  position: { commit: 1n, prepare: 0n },
  id: 'app-fee-claim:0xc1:opened',
  type: 'AppFeeClaimOpened',
  schemaVersion: 1,
  data: OPENED,
  metadata: {},
  createdAt: new Date(T0),
};

const events = recorded([
  {
    type: 'AccrueAppFee',
    data: {
      requestId: '0xr1',
      amount: '900',
      amountUsd: '0.0009',
      usdcPrice: '1',
      accruedAt: T0,
      source: { commit: '3', prepare: '30' },
    },
  },
  { type: 'AuthorizeClaim', data: { claimId: '0xc1', signature: '0xsig', at: T0, opened: OPENED } },
  { type: 'RecordClaimPaid', data: { claimId: '0xc1', txHash: '0xtx', at: T0 } },
]);

describe('app-fee projections', () => {
  it('app-fee-balances folds an account into one row by address with its balance columns', () => {
    const state = events.reduce(
      (acc, event) => {
        expect(appFeeBalancesProjection.keysOf(event)).toEqual([ADDRESS]);
        return appFeeBalancesProjection.evolve(acc, event, ADDRESS);
      },
      null as ReturnType<typeof appFeeBalancesProjection.evolve>,
    )!;
    const columns = Object.fromEntries(appFeeBalancesProjection.columns.map((c) => [c.name, c.value(state)]));
    expect(columns).toEqual({
      accrued: '900',
      reserved: '0',
      withdrawn: '900',
      sponsored: '0',
      held: '0',
      available: '0',
    });
  });

  it('app-fee-claims keeps one row per claim, with its account address, and ignores accruals', () => {
    expect(appFeeClaimsProjection.keysOf(events[0])).toEqual([]);
    expect(appFeeBalancesProjection.keysOf(openedEvent)).toEqual([]);
    expect(appFeeClaimsProjection.keysOf(openedEvent)).toEqual(['0xc1']);
    expect(appFeeClaimsProjection.evolve(null, openedEvent, '0xc1')).toMatchObject({
      address: ADDRESS,
      status: 'open',
      amount: '900',
    });
    const state = [openedEvent, ...events.slice(1)].reduce(
      (acc, event) => appFeeClaimsProjection.evolve(acc, event, '0xc1'),
      null as ReturnType<typeof appFeeClaimsProjection.evolve>,
    );
    expect(state).toMatchObject({
      address: ADDRESS,
      claimId: '0xc1',
      status: 'paid',
      amount: '900',
      txHash: '0xtx',
    });
  });

  it('neither projection takes events of other streams', () => {
    const other = { ...events[1], streamId: 'request-0xc1' };
    expect(appFeeBalancesProjection.keysOf(other)).toEqual([]);
    expect(appFeeClaimsProjection.keysOf(other)).toEqual([]);
  });
});
