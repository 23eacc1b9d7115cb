import type { RequestQuotedData } from '../../src/requests/domain/request-events.js';
import { requestFeatures } from '../../src/requests/domain/request-features.js';
import type { RequestRecordState } from './request-record-state.js';

/** The record a request starts with: its quote, nothing deposited or filled yet. */
export function recordFromQuote(q: RequestQuotedData): RequestRecordState {
  const quotedRoute = { origin: q.route.origin, destination: q.route.destination };
  return {
    apiKeyId: q.apiKeyId,
    referrer: q.referrer,
    originChainId: q.originChainId,
    destinationChainId: q.destinationChainId,
    currencyIn: q.currencyIn.currency,
    currencyOut: q.currencyOut.currency,
    quotedRate: q.rate,
    currencyGasTopup: q.currencyGasTopup,
    listed: false,
    expired: false,
    expiredReason: null,
    depositSubmittedVia: null,
    depositBlock: null,
    depositSeenAtMs: null,
    filledAtMs: null,
    quotedAt: q.quotedAt,
    v3: {
      id: q.requestId,
      status: 'waiting',
      user: q.user,
      sender: q.sender,
      recipient: q.recipient,
      refundTo: q.refundTo,
      depositAddress: q.depositAddress
        ? {
            address: q.depositAddress.address,
            type: q.depositAddress.type,
            depositor: q.depositAddress.depositor,
            depositTxHash: null,
            recoveryAddress: q.depositAddress.recoveryAddress,
          }
        : null,
      requestType: q.requestType,
      supersededByRequestId: null,
      features: requestFeatures(q.features),
      protocol: {
        orderId: q.protocol.orderId,
        hubType: q.protocol.hubType,
        isWithdrawable: q.protocol.isWithdrawable,
        solver: q.protocol.solver,
        deposit: {
          origin: {
            amount: null,
            chainId: q.originChainId,
            currency: q.protocol.paymentDetails.currency,
            depositor: null,
            depository: q.protocol.paymentDetails.depository,
            onchainId: q.protocol.orderId,
            transactionId: null,
          },
        },
        settlement: { destination: { fills: [], refunds: [] } },
      },
      createdAt: q.quotedAt,
      updatedAt: q.quotedAt,
      data: {
        slippageTolerance: q.slippageTolerance,
        failReason: null,
        refundFailReason: null,
        failedTxHash: null,
        failedTxBlockNumber: null,
        failedCallData: null,
        usesExternalLiquidity: q.usesExternalLiquidity,
        timeEstimate: q.timeEstimate,
        triggeredByFastFill: null,
        inTxs: [],
        outTxs: [],
        appFees: { quoted: q.appFees, actual: [], currency: q.appFeeCurrency },
        fees: { quoted: q.fees, actual: null, currency: q.feeCurrency },
        feeSponsorship: q.feeSponsorship
          ? { currency: q.sponsorshipCurrency, quoted: q.feeSponsorship, actual: null }
          : null,
        route: {
          includedSwapSources: q.route.includedSwapSources,
          includedOriginSwapSources: q.route.includedOriginSwapSources,
          includedDestinationSwapSources: q.route.includedDestinationSwapSources,
          quoted: quotedRoute,
          // Until something executes, `actual` is the quote (the spec's fallback rule).
          actual: { ...quotedRoute, rate: q.rate },
        },
        platformFee: null,
        quoteOraclePrice: q.quoteOraclePrice,
        refundCurrencyData: null,
        externalMetadata: q.externalMetadata,
      },
    },
  };
}
