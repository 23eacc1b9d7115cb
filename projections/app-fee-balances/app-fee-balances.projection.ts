import {
  type AppFeeAccountEvent,
  APP_FEE_ACCOUNT_EVENTS,
} from '../../src/app-fees/domain/app-fee-account-events.js';
import {
  APP_FEE_ACCOUNT_PREFIX,
  APP_FEE_CLAIM_PREFIX,
} from '../../src/app-fees/domain/app-fee-account.aggregate.js';
import {
  type AppFeeAccountState,
  availableBalance,
  type ClaimState,
  evolve,
  heldTotal,
  initialAppFeeAccountState,
} from '../../src/app-fees/domain/app-fee-account-state.js';
import { EventRegistry } from '../../src/event-store/event-registry.js';
import type { RecordedEvent } from '../../src/event-store/event-store.js';
import type { Projection } from '../projection.js';

const registry = new EventRegistry().register(...APP_FEE_ACCOUNT_EVENTS);

/** The address an account stream belongs to (`app-fee-account-<lowercased address>`), else null. */
export function addressOfStream(streamId: string): string | null {
  return streamId.startsWith(APP_FEE_ACCOUNT_PREFIX) ? streamId.slice(APP_FEE_ACCOUNT_PREFIX.length) : null;
}

const accountEvent = (event: RecordedEvent): AppFeeAccountEvent =>
  registry.deserialize(event) as AppFeeAccountEvent;

/**
 * `GET /app-fees/{address}/balances`: one row per app-fee account, the aggregate's own state folded by its pure
 * evolve (so `projections:audit` reproduces every balance from the log); the balance columns are there for operators'
 * queries, the service reads the state by address.
 */
export const appFeeBalancesProjection: Projection<AppFeeAccountState> = {
  name: 'app-fee-balances',
  version: 6,
  table: 'app_fee_balances',
  columns: [
    { name: 'accrued', type: 'numeric', value: (state) => state.accrued },
    { name: 'reserved', type: 'numeric', value: (state) => state.reserved },
    { name: 'withdrawn', type: 'numeric', value: (state) => state.withdrawn },
    { name: 'sponsored', type: 'numeric', value: (state) => state.sponsored },
    { name: 'held', type: 'numeric', value: (state) => heldTotal(state).toString() },
    { name: 'available', type: 'numeric', value: (state) => availableBalance(state).toString() },
  ],
  keysOf: (event) => {
    const address = addressOfStream(event.streamId);
    return address && registry.has(event.type) ? [address] : [];
  },
  evolve: (state, event) => evolve(state ?? initialAppFeeAccountState, accountEvent(event)),
};

/** A claim row: the claim as its account sees it, and whose it is. */
export interface AppFeeClaimRow extends ClaimState {
  readonly address: string;
}

/**
 * One row per claim, by claim id: where `POST /execute/permits` finds the account a signed claim belongs to, and what
 * `GET /app-fees/{address}/claims` lists. Folded with the account's own evolve, so it never disagrees with balances:
 * from the claim's own stream (`AppFeeClaimOpened`, carrying its address) and then from its account's.
 */
export const appFeeClaimsProjection: Projection<AppFeeClaimRow> = {
  name: 'app-fee-claims',
  version: 1,
  table: 'app_fee_claims',
  columns: [
    { name: 'address', type: 'text', value: (state) => state.address },
    { name: 'status', type: 'text', value: (state) => state.status },
    { name: 'updated_at', type: 'timestamptz', value: (state) => state.updatedAt },
  ],
  indexes: [{ name: 'address_idx', columns: ['address', 'updated_at DESC'] }],
  keysOf: (event) => {
    const claimStream = event.streamId.startsWith(APP_FEE_CLAIM_PREFIX);
    if ((!addressOfStream(event.streamId) && !claimStream) || !registry.has(event.type)) return [];
    const claimId = (event.data as { claimId?: string }).claimId;
    return claimId ? [claimId] : [];
  },
  evolve: (state, event, key) => {
    const address =
      addressOfStream(event.streamId) ?? (event.data as { address?: string }).address ?? state?.address ?? '';
    const account: AppFeeAccountState = {
      ...initialAppFeeAccountState,
      claims: state ? { [key]: state } : {},
    };
    const claim = evolve(account, accountEvent(event)).claims[key];
    return claim ? { ...claim, address } : null;
  },
};
