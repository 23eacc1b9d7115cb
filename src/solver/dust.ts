import type { Address } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import { usdValue } from '../quotes/domain/pricing/valuation.js';
import type { Currency } from '../requests/domain/records.js';
import type { EvmClients } from './evm-clients.js';
import { isNativeAddress } from './payments.js';

/** Gas a payment back takes at most (a native transfer with the order id, or an ERC-20 `transfer`). */
const PAYMENT_GAS = { native: 30_000n, token: 70_000n };

/** A payment that cannot be weighed against its gas now (no USD price): not sent now, retried later. */
export class DustUnknown extends Error {}

/**
 * Whether paying `amount` of `token` (null: the native currency) back would cost the solver more gas (`gas` units at
 * the chain's gas price) than it returns: then it is not sent, so nobody can drain the solver with dust. A token is
 * compared with the gas by their USD prices; one that cannot be priced now throws DustUnknown (rather than sent at any
 * cost).
 */
export async function isDust(
  deps: { readonly clients: EvmClients; readonly prices?: PriceSource },
  origin: ChainInfo,
  amount: bigint,
  token: Address | null,
  gasUnits: bigint,
): Promise<boolean> {
  const gasPrice = await deps.clients.of(origin).getGasPrice();
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
 * a return of an unmatched deposit, is dust: worth less than the transfer's gas (isDust). Throws DustUnknown as
 * isDust does.
 */
export function isPaymentDust(
  deps: { readonly clients: EvmClients; readonly prices?: PriceSource },
  chain: ChainInfo,
  amount: bigint,
  currency: string,
): Promise<boolean> {
  const native = isNativeAddress(currency);
  return isDust(
    deps,
    chain,
    amount,
    native ? null : (currency as Address),
    PAYMENT_GAS[native ? 'native' : 'token'],
  );
}
