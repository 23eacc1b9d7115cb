import type { ChainCurrency } from '../../../chains/chain.js';
import type { Currency, Operation, RequestType } from '../../../requests/domain/records.js';
import {
  isListed,
  MAJOR_ASSETS,
  MAJOR_STABLECOINS,
  STABLECOINS,
  type TransactionType,
  WRAPPED_ASSETS,
} from './fee-schedule.js';
import { sameAddress } from './price-source.js';

export interface ClassifyTransactionParameters {
  readonly currencyIn: ChainCurrency;
  readonly currencyOut: ChainCurrency;
  /** The native currencies of the origin and destination chains (what "native" and "wrapped" refer to). */
  readonly originNative: Currency;
  readonly destinationNative: Currency;
  /** The request carries `txs` (a call): the request type is `Call` whatever the currencies. */
  readonly hasTxs: boolean;
}

export interface Classification {
  readonly transactionType: TransactionType;
  /** The quote's `details.operation`. */
  readonly operation: Operation;
  /** The v3 record's `requestType`. */
  readonly requestType: RequestType;
  readonly sameChain: boolean;
}

/**
 * What a quote moves, decided from its two currencies only (docs/fees.md, "Transaction types"):
 * - `send`: the same currency on the same chain;
 * - `wrap-unwrap`: a chain's native currency and its wrapped native token, on that chain;
 * - `token-bridge`: the same asset on two chains (same symbol, or native ↔ wrapped native of the same asset);
 * - otherwise a swap: `stablecoin-swap`, `major-swap` or `minor-swap` by the spec's symbol lists.
 */
export function classifyTransaction(parameters: ClassifyTransactionParameters): Classification {
  const sameChain = parameters.currencyIn.chainId === parameters.currencyOut.chainId;
  const [transactionType, operation] = typeAndOperation(parameters, sameChain);
  return {
    transactionType,
    operation,
    requestType: parameters.hasTxs ? 'Call' : requestTypeOf(operation, sameChain),
    sameChain,
  };
}

function typeAndOperation(
  { currencyIn, currencyOut, originNative, destinationNative }: ClassifyTransactionParameters,
  sameChain: boolean,
): readonly [TransactionType, Operation] {
  if (sameChain && sameAddress(currencyIn.address, currencyOut.address)) return ['send', 'send'];
  if (sameChain && isNative(currencyIn, originNative) && currencyOut.wrappedNative)
    return ['wrap-unwrap', 'wrap'];
  if (sameChain && currencyIn.wrappedNative && isNative(currencyOut, originNative)) {
    return ['wrap-unwrap', 'unwrap'];
  }
  if (!sameChain && assetOf(currencyIn, originNative) === assetOf(currencyOut, destinationNative)) {
    return ['token-bridge', 'bridge'];
  }
  return [swapTypeOf(currencyIn.symbol, currencyOut.symbol), 'swap'];
}

/** The fee class of a swap between two symbols. */
export function swapTypeOf(symbolIn: string, symbolOut: string): TransactionType {
  if (isListed(STABLECOINS, symbolIn) && isListed(STABLECOINS, symbolOut)) return 'stablecoin-swap';
  const majorIn = isListed(MAJOR_ASSETS, symbolIn);
  const majorOut = isListed(MAJOR_ASSETS, symbolOut);
  if (majorIn && majorOut) return 'major-swap';
  if (majorIn && isListed(MAJOR_STABLECOINS, symbolOut)) return 'major-swap';
  if (majorOut && isListed(MAJOR_STABLECOINS, symbolIn)) return 'major-swap';
  return 'minor-swap';
}

function requestTypeOf(operation: Operation, sameChain: boolean): RequestType {
  switch (operation) {
    case 'send':
      return 'Send';
    case 'wrap':
      return 'Wrap';
    case 'unwrap':
      return 'Unwrap';
    case 'bridge':
      return 'Bridge';
    case 'swap':
      return sameChain ? 'Same-chain Swap' : 'Crosschain Swap';
  }
}

function isNative(currency: Currency, chainNative: Currency): boolean {
  return currency.metadata.isNative === true || sameAddress(currency.address, chainNative.address);
}

/**
 * The asset a currency stands for, to tell a bridge from a swap: the chain's native symbol for the native currency
 * and its wrapped token, the unwrapped symbol for the well-known wrapped majors, else the symbol itself.
 */
function assetOf(currency: ChainCurrency, chainNative: Currency): string {
  const symbol =
    currency.wrappedNative || isNative(currency, chainNative) ? chainNative.symbol : currency.symbol;
  const upper = symbol.toUpperCase();
  return WRAPPED_ASSETS[upper] ?? upper;
}
