import { type Address, concatHex, encodeFunctionData, type Hex } from 'viem';
import { erc20Abi } from '../chains/abi/erc20.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import type { TxIntent } from './transaction-journal.js';

const NATIVE = '0x0000000000000000000000000000000000000000';

/** Whether a currency address is its chain's native currency (the zero address), not an ERC-20. */
export const isNativeAddress = (currency: string): boolean => currency.toLowerCase() === NATIVE;

/** A payment of `amount` to `recipient`: native value, or an ERC-20 transfer, with the order id appended. */
export function transferIntent(currency: string, recipient: string, amount: bigint, orderId: Hex): TxIntent {
  if (isNativeAddress(currency)) return { to: recipient as Address, value: amount, data: orderId };
  const transfer = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'transfer',
    args: [recipient as Address, amount],
  });
  return { to: currency as Address, value: 0n, data: concatHex([transfer, orderId]) };
}

/** The destination calls a quote carries (`txs`), as recorded in its order data. */
export function destinationCalls(
  quote: RequestQuotedData,
): readonly { to: string; data: string; value: string }[] {
  const orderData = quote.protocol.orderData as {
    output?: { calls?: readonly { to: string; data: string; value: string }[] };
  };
  return orderData.output?.calls ?? [];
}

/** Where a refund goes: the quote's `refundTo`, else the refund recipient in its order, else the user. */
export function refundRecipient(quote: RequestQuotedData): string {
  if (quote.refundTo) return quote.refundTo;
  const orderData = quote.protocol.orderData as { inputs?: { refunds?: { recipient: string }[] }[] };
  return orderData.inputs?.[0]?.refunds?.[0]?.recipient ?? quote.user;
}
