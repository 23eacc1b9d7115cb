import { ApiError } from '../common/http/api-error.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import { DustUnknown } from '../solver/dust.js';
import type { EvmClients } from '../solver/evm-clients.js';
import type { ClaimPayouts } from './claim-payouts.js';

/** What weighing a claim's payout against its gas reads: the payout chain's gas price, USD prices of a token. */
export interface ClaimGasDeps {
  readonly clients: EvmClients;
  readonly prices?: PriceSource;
}

/** The payout of a claim, as its terms say. */
export interface ClaimPayoutOf {
  readonly chainId: number;
  readonly currency: string;
  readonly payoutAmount: string;
}

/** A claim's payout is worth less than the gas the treasury would pay to send it: it is not sent. */
export class ClaimBelowGas extends Error {
  constructor(readonly payout: ClaimPayoutOf) {
    super(
      `The payout (${payout.payoutAmount} of ${payout.currency} on chain ${payout.chainId}) is worth less than the gas to send it`,
    );
    this.name = 'ClaimBelowGas';
  }
}

/** The answer to a claim whose payout is not worth its gas: 400 `CLAIM_BELOW_GAS`. */
export function claimBelowGasError(payout: ClaimPayoutOf): ApiError {
  return new ApiError(
    'CLAIM_BELOW_GAS',
    `The payout of this claim (${payout.payoutAmount} of ${payout.currency} on chain ${payout.chainId}) is worth less than the gas to send it; claim once the balance has grown, or on a chain where gas costs less`,
    {
      chainId: payout.chainId,
      currency: payout.currency.toLowerCase(),
      payoutAmount: payout.payoutAmount,
    },
  );
}

/**
 * Refuses to open a claim whose payout would not be worth its gas (400 `CLAIM_BELOW_GAS`); one that cannot be weighed
 * now (a USD price or the chain's gas price unreadable) is 503 `SERVICE_UNAVAILABLE`, to be asked again.
 */
export async function refuseClaimBelowGas(
  payouts: Pick<ClaimPayouts, 'worthItsGas'>,
  claim: ClaimPayoutOf & { readonly recipient: string; readonly claimId: string },
): Promise<void> {
  let worth: boolean;
  try {
    worth = await payouts.worthItsGas(claim);
  } catch (error) {
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      `The payout could not be weighed against its gas now; retry shortly (${error instanceof DustUnknown ? 'no USD price' : 'chain unavailable'})`,
    );
  }
  if (!worth) throw claimBelowGasError(claim);
}
