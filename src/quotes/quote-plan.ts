import { assertWalletAddress, isValidWalletAddress } from '../chains/addresses.js';
import type { ChainCurrency, ChainInfo } from '../chains/chain.js';
import type { ChainRegistry } from '../chains/chain-registry.js';
import { QuoteError } from './domain/quote-error.js';
import { svmAddress } from './domain/steps/svm-programs.js';
import type { PriceRequestDto, QuoteRequestDto } from './quote-request.dto.js';
import { assertSettleable, DEFAULT_SETTLEMENT, type SettlementSupport } from './settlement-support.js';

/** A request's chains, currencies and parties, looked up and checked against the chains they belong to. */
export interface QuoteParties {
  readonly origin: ChainInfo;
  readonly destination: ChainInfo;
  readonly currencyIn: ChainCurrency;
  readonly currencyOut: ChainCurrency;
  /** In each chain's own format, normalised (EVM checksummed). */
  readonly user: string;
  readonly recipient: string;
  /** Where a refund goes on the origin chain: `refundTo`, else the recipient when valid there, else the user. */
  readonly refundRecipient: string;
  /** The request's own `refundTo` (null when it gave none). */
  readonly refundTo: string | null;
}

/**
 * Resolves the chains and currencies of a quote request and checks every address against the chain it lives on
 * (`user` and `refundTo` on the origin, `recipient` on the destination). Throws `QuoteError` (UNSUPPORTED_CHAIN,
 * UNSUPPORTED_CURRENCY, INVALID_ADDRESS, UNSUPPORTED_OPTION), then whether Ferry can settle the route at all
 * (SETTLEMENT_UNAVAILABLE).
 */
export function resolveParties(
  chains: ChainRegistry,
  request: PriceRequestDto | QuoteRequestDto,
  settlement: SettlementSupport = DEFAULT_SETTLEMENT,
): QuoteParties {
  const origin = chains.chain(request.originChainId);
  const destination = chains.chain(request.destinationChainId);
  for (const chain of [origin, destination]) {
    if (!chain.depositEnabled) {
      throw new QuoteError(
        'UNSUPPORTED_CHAIN',
        `Chain ${chain.id} (${chain.displayName}) is not open for requests`,
        {
          chainId: chain.id,
        },
      );
    }
  }
  refuseOriginSwap(chains, origin, request.originCurrency);
  const currencyIn = chains.currency(origin.id, request.originCurrency);
  const currencyOut = chains.currency(destination.id, request.destinationCurrency);
  const user = assertWalletAddress(origin.vmType, request.user, 'user', origin.id);
  const recipient = assertWalletAddress(
    destination.vmType,
    request.recipient ?? request.user,
    'recipient',
    destination.id,
  );
  const refundTo =
    request.refundTo === undefined
      ? null
      : assertWalletAddress(origin.vmType, request.refundTo, 'refundTo', origin.id);
  const refundRecipient =
    refundTo ??
    (isValidWalletAddress(origin.vmType, recipient) && origin.vmType === destination.vmType
      ? recipient
      : user);
  if (request.txs?.length && destination.vmType !== 'evm') {
    throw new QuoteError('UNSUPPORTED_OPTION', 'txs (destination calls) need an EVM destination chain', {
      option: 'txs',
      destinationChainId: destination.id,
    });
  }
  // Last, so a malformed request hears about its own mistakes first.
  assertSettleable(origin, destination, settlement);
  return { origin, destination, currencyIn, currencyOut, user, recipient, refundRecipient, refundTo };
}

/**
 * An SVM origin currency the chain does not list is an SVM token the depository does not take: the route would need
 * an origin swap through a third-party aggregator into a listed one, and none is configured. 400
 * SWAP_AGGREGATOR_UNAVAILABLE, rather than a made-up swap (docs/svm.md). A malformed address stays INVALID_ADDRESS.
 */
function refuseOriginSwap(chains: ChainRegistry, origin: ChainInfo, originCurrency: string): void {
  if (origin.vmType !== 'svm' || chains.findCurrency(origin.id, originCurrency)) return;
  svmAddress(originCurrency, 'originCurrency');
  throw new QuoteError(
    'SWAP_AGGREGATOR_UNAVAILABLE',
    `${originCurrency} would have to be swapped on chain ${origin.id} (${origin.displayName}) through an aggregator, and none is configured; deposit a currency GET /chains lists for it`,
    { chainId: origin.id, currency: originCurrency },
  );
}
