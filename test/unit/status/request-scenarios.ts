import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import type { RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import { sampleLifecycle } from '../../../src/requests/domain/sample-requests.js';

/**
 * The commands of each path a request can take, built on `sampleLifecycle` (shared by the status and v2 tests, unit
 * and e2e). Times are the quote's plus a few seconds, as the chain watcher would report them.
 */
export const later = (iso: string, seconds: number): string =>
  new Date(Date.parse(iso) + seconds * 1000).toISOString();
export const hashOf = (n: number, kind: number): string =>
  `0x${kind.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}`;

export function scenario(quote: RequestQuotedData, n: number) {
  const [recordQuote, detect, confirm, submitFill, fillSuccess] = sampleLifecycle(quote, n);
  const fillHash = (submitFill.data as { txHash: string }).txHash;
  const refundHash = hashOf(n, 3);
  const failFill: RequestCommand = {
    type: 'RecordFillFailure',
    data: {
      failReason: 'FILL_REVERTED',
      failedTxHash: fillHash,
      failedTxBlockNumber: 2000 + n,
      failedCallData: null,
      details: 'execution reverted: output below minimum',
      failedAt: later(quote.quotedAt, 12),
    },
  };
  const refund = {
    chainId: quote.originChainId,
    txHash: refundHash,
    amount: quote.currencyIn.amount,
    currency: quote.currencyIn.currency.address,
    recipient: quote.user,
  };
  const submitRefund: RequestCommand = {
    type: 'SubmitRefund',
    data: { ...refund, reason: null, submittedAt: later(quote.quotedAt, 20) },
  };
  const refundSuccess: RequestCommand = {
    type: 'RecordRefundSuccess',
    data: {
      ...refund,
      block: 3000 + n,
      timestamp: Date.parse(quote.quotedAt) / 1000 + 25,
      fee: '21000000000000',
      refundedAt: later(quote.quotedAt, 25),
    },
  };
  const refundFailure: RequestCommand = {
    type: 'RecordRefundFailure',
    data: {
      refundFailReason: 'REFUND_REVERTED',
      failedTxHash: refundHash,
      failedAt: later(quote.quotedAt, 26),
    },
  };
  const skipRefund: RequestCommand = {
    type: 'SkipRefund',
    data: {
      refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      chainId: quote.originChainId,
      amount: quote.currencyIn.amount,
      currency: quote.currencyIn.currency.address,
      skippedAt: later(quote.quotedAt, 21),
    },
  };
  const submitDeposit: RequestCommand = {
    type: 'SubmitDeposit',
    data: {
      via: 'permit',
      chainId: quote.originChainId,
      txHash: (detect.data as { txHash: string }).txHash,
      submittedAt: later(quote.quotedAt, 3),
    },
  };
  const expire: RequestCommand = { type: 'ExpireRequest', data: { at: quote.quoteExpiresAt } };
  return {
    fillHash,
    refundHash,
    depositHash: (detect.data as { txHash: string }).txHash,
    recordQuote,
    detect,
    confirm,
    submitFill,
    fillSuccess,
    failFill,
    submitRefund,
    refundSuccess,
    refundFailure,
    skipRefund,
    submitDeposit,
    expire,
    success: [recordQuote, detect, confirm, submitFill, fillSuccess],
    refunded: [recordQuote, detect, confirm, submitFill, failFill, submitRefund, refundSuccess],
    refundFailed: [recordQuote, detect, confirm, submitFill, failFill, submitRefund, refundFailure],
    refundSkipped: [recordQuote, detect, confirm, submitFill, failFill, skipRefund],
    expired: [recordQuote, expire],
    depositing: [recordQuote, submitDeposit],
  };
}
