import { type Address, parseTransaction } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import { usdValue } from '../quotes/domain/pricing/valuation.js';
import type { Currency } from '../requests/domain/records.js';
import type { EvmClients } from './evm-clients.js';
import { feeCapOf } from './fee-cap.js';
import { isNativeAddress } from './payments.js';
import {
  gasLimitOf,
  type JournalEntry,
  type PreparedTx,
  type TransactionJournal,
  type TxIntent,
  type TxPurpose,
} from './transaction-journal.js';

/**
 * Gas a plain payment back takes at most (a native transfer with the order id, or an ERC-20 `transfer`): the least a
 * payment is weighed at, whatever its estimate says.
 */
const PAYMENT_GAS = { native: 30_000n, token: 70_000n };

/** A payment that cannot be weighed against its gas now (no USD price): not sent now, retried later. */
export class DustUnknown extends Error {}

/**
 * Whether paying `amount` of `token` (null: the native currency) back would cost the solver more gas (`gas` units at
 * the chain's gas price, never above its fee cap: no transaction pays more, decision 0031) than it returns: then it
 * is not sent, so nobody can drain the solver with dust. The cap keeps a spike, or a node answering a huge gas price,
 * from making a payment worth its gas look like dust, which is never paid. A token is compared with the gas by their
 * USD prices; one that cannot be priced now throws DustUnknown (rather than sent at any cost).
 */
export async function isDust(
  deps: { readonly clients: EvmClients; readonly prices?: PriceSource },
  origin: ChainInfo,
  amount: bigint,
  token: Address | null,
  gasUnits: bigint,
): Promise<boolean> {
  const read = await deps.clients.of(origin).getGasPrice();
  const cap = feeCapOf(origin);
  const gasPrice = read < cap ? read : cap;
  const gas = gasPrice * gasUnits;
  if (token === null) return amount < gas;
  const usdPrice = (currency: Currency): Promise<string | null> =>
    deps.prices ? deps.prices.usdPrice(currency).catch(() => null) : Promise.resolve(null);
  const currency = origin.currencies.find((c) => c.address.toLowerCase() === token.toLowerCase());
  const [tokenUsd, nativeUsd] = await Promise.all([
    currency ? usdPrice(currency) : null,
    usdPrice(origin.nativeCurrency),
  ]);
  if (!currency || tokenUsd === null || nativeUsd === null) {
    throw new DustUnknown(`${amount} of ${token}: no USD price to weigh it against its gas`);
  }
  const worth = usdValue(amount, { ...currency, usdPrice: tokenUsd }, 'floor');
  const cost = usdValue(gas, { ...origin.nativeCurrency, usdPrice: nativeUsd }, 'ceil');
  return worth.lt(cost);
}

/**
 * Whether paying `amount` of `currency` (an address; the zero address: native) back from the solver, as a refund or
 * a return of an unmatched deposit, is dust: worth less than the gas it may cost (isDust). That is the gas the journal
 * would sign it with (`gasLimitOf` its estimate in `prepared`, what `journal.prepare` read): the recipient is an
 * address a user chose, and a contract there may burn all of it on receipt, up to `PAYMENT_GAS_CAP`. Never less than
 * a plain transfer's gas (30,000 native, 70,000 for a token), the rule's floor; `prepared` null (not estimated: it
 * would revert) weighs at the floor alone, so dust is still not sent, rather than retried. `options.floorGas`
 * replaces that floor for a payment that is more than a transfer (a deposit-address give-back deploys a receiver
 * first). `options.spentGas` is gas the solver already paid trying to send these funds (attempts that reverted): it is
 * added, so the attempts together never cost more than the funds are worth. Throws DustUnknown as isDust does.
 *
 * @example if (await isPaymentDust(deps, chain, amount, currency, await journal.prepare(chain, intent))) skip();
 */
export function isPaymentDust(
  deps: { readonly clients: EvmClients; readonly prices?: PriceSource },
  chain: ChainInfo,
  amount: bigint,
  currency: string,
  prepared: Pick<PreparedTx, 'gas'> | null,
  options: { readonly floorGas?: bigint; readonly spentGas?: bigint } = {},
): Promise<boolean> {
  const native = isNativeAddress(currency);
  const floor = options.floorGas ?? PAYMENT_GAS[native ? 'native' : 'token'];
  const limit = prepared ? gasLimitOf(prepared.gas) : 0n;
  const gas = (limit > floor ? limit : floor) + (options.spentGas ?? 0n);
  return isDust(deps, chain, amount, native ? null : (currency as Address), gas);
}

/**
 * The gas the entries of `purposes` that reverted may have burnt (each its gas limit: all a recipient contract can
 * burn), paid by the solver already. A payment's estimate is no promise: a contract can pass it and revert once sent
 * (armed by a transaction front-running the payment), so a payment retried after a revert is weighed with this
 * (`isPaymentDust`'s `spentGas`), and its attempts together never cost more than it pays.
 */
export function revertedGas(entries: readonly JournalEntry[], purposes: readonly TxPurpose[]): bigint {
  return entries
    .filter((entry) => purposes.includes(entry.purpose) && entry.state === 'reverted')
    .reduce((sum, entry) => sum + (parseTransaction(entry.rawTx).gas ?? 0n), 0n);
}

/**
 * A payment's transaction prepared once (`journal.prepare`: the gas it is weighed at is the gas it would be signed
 * with), or, when that fails (it would revert, or the RPC failed), null and why: such a payment is still weighed
 * against its gas (`isPaymentDust` at its floor), so dust is skipped rather than retried; the caller then throws
 * `unprepared`.
 */
export async function preparePayment(
  journal: Pick<TransactionJournal, 'prepare'>,
  chain: ChainInfo,
  intent: TxIntent,
): Promise<{ readonly prepared: PreparedTx | null; readonly unprepared?: unknown }> {
  try {
    return { prepared: await journal.prepare(chain, intent) };
  } catch (error) {
    return { prepared: null, unprepared: error };
  }
}
