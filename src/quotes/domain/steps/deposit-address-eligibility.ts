import type { ChainCurrency, ChainInfo } from '../../../chains/chain.js';
import { QuoteError } from '../quote-error.js';

export interface DepositAddressEligibilityParameters {
  readonly origin: ChainInfo;
  readonly destination: ChainInfo;
  readonly currencyIn: ChainCurrency;
  readonly currencyOut: ChainCurrency;
  /** The request's `requestType` as priced: only `Bridge` may use a deposit address. */
  readonly requestType: string;
}

/**
 * Refuses `useDepositAddress` where the spec does not offer it: only native-currency bridges ("deposit address
 * bridging; native-currency bridges only"), from an EVM chain that has a deposit-address factory. A receiver only
 * forwards native value (a plain transfer emits nothing an ERC-20 could be matched by), and the quoted amount is
 * filled one to one in the same native asset, so nothing is priced between the transfer and the sweep.
 * Throws `QuoteError` `DEPOSIT_ADDRESS_UNAVAILABLE` (400) naming what is missing.
 */
export function assertDepositAddressEligible(parameters: DepositAddressEligibilityParameters): void {
  const { origin, destination, currencyIn, currencyOut } = parameters;
  const refuse = (why: string, reason: string) => {
    throw new QuoteError('DEPOSIT_ADDRESS_UNAVAILABLE', `useDepositAddress: ${why}`, {
      option: 'useDepositAddress',
      reason,
    });
  };
  if (origin.vmType !== 'evm') refuse(`chain ${origin.id} is not an EVM chain`, 'origin-not-evm');
  const native = (currency: ChainCurrency, chain: ChainInfo) =>
    currency.address.toLowerCase() === chain.nativeCurrency.address.toLowerCase();
  if (
    parameters.requestType !== 'Bridge' ||
    !native(currencyIn, origin) ||
    !native(currencyOut, destination) ||
    currencyIn.symbol !== currencyOut.symbol
  ) {
    refuse(
      `only native-currency bridges may use a deposit address (${currencyIn.symbol} on ${origin.id} to ${currencyOut.symbol} on ${destination.id} is not one)`,
      'not-native-bridge',
    );
  }
  if (!origin.depositAddressFactory) {
    refuse(`chain ${origin.id} has no deposit-address factory`, 'no-factory');
  }
}
