import type { ChainInfo, VmType } from '../chains/chain.js';
import { QuoteError } from './domain/quote-error.js';

/**
 * What Ferry can settle on each kind of chain: read a deposit there (origin) and pay a fill there (destination).
 * A quote is only given when both ends can be settled: a step that sends funds where nothing reads them, or a deposit
 * whose fill nothing can pay, would hold a user's money until a deadline at best. The flows' step builders stay (they
 * are what an adapter will return); the quote refuses the route until the adapter exists (docs/quotes.md, "Flows").
 */
export type SettlementSupport = Readonly<
  Record<VmType, { readonly deposits: boolean; readonly fills: boolean; readonly why: string }>
>;

/**
 * Injection token for the table (QuoteService takes it when one is provided). Production never provides one: the
 * default says what Ferry has. A test that exercises a flow's quote path ahead of its adapter provides its own and
 * says so in its name (test/e2e/svm-quotes.e2e-spec.ts).
 */
export const SETTLEMENT_SUPPORT = Symbol('SETTLEMENT_SUPPORT');

export const DEFAULT_SETTLEMENT: SettlementSupport = {
  evm: { deposits: true, fills: true, why: '' },
  svm: {
    deposits: false,
    fills: false,
    why: 'Ferry has no SVM chain reader or solver yet: nothing would read the deposit or pay the fill',
  },
  'perps-a': {
    deposits: false,
    fills: false,
    why: 'Ferry has no perps exchange A adapter yet: nothing would read the transfer or pay the fill',
  },
  'perps-b': {
    deposits: false,
    fills: false,
    why: 'Ferry has no perps exchange B adapter yet: nothing would read the transfer or pay the fill',
  },
};

/** Throws `SETTLEMENT_UNAVAILABLE` unless Ferry can read a deposit on `origin` and pay a fill on `destination`. */
export function assertSettleable(
  origin: ChainInfo,
  destination: ChainInfo,
  table: SettlementSupport = DEFAULT_SETTLEMENT,
): void {
  check(origin, 'origin', table);
  check(destination, 'destination', table);
}

function check(chain: ChainInfo, side: 'origin' | 'destination', table: SettlementSupport): void {
  const support = table[chain.vmType];
  const able = side === 'origin' ? support.deposits : support.fills;
  if (!able) {
    throw new QuoteError(
      'SETTLEMENT_UNAVAILABLE',
      `Chain ${chain.id} (${chain.displayName}): ${support.why}`,
      {
        chainId: chain.id,
        side,
        vmType: chain.vmType,
      },
    );
  }
  if (!chain.rpcUrl) {
    throw new QuoteError(
      'SETTLEMENT_UNAVAILABLE',
      `Chain ${chain.id} (${chain.displayName}) has no RPC in this environment (${chain.rpcUrlVariable ?? 'rpcUrl'}): Ferry could not ${side === 'origin' ? 'see the deposit' : 'pay the fill'}`,
      { chainId: chain.id, side, vmType: chain.vmType, variable: chain.rpcUrlVariable },
    );
  }
}
