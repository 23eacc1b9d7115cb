import type { ChainInfo } from '../chains/chain.js';
import type { TxFees } from './journal-sender.js';

/**
 * The most any transaction of the journal bids per gas on `chain`, first signatures, replacements, cancellations and
 * nonce fillers alike: `gas.maxFeePerGasWei`, else 100 × `gas.defaultPriceWei` (decisions 0026, 0031).
 *
 * @example feeCapOf(chain) // 100_000_000_000n for a chain whose defaultPriceWei is 1 gwei and that sets no cap
 */
export function feeCapOf(chain: ChainInfo): bigint {
  return chain.gas.maxFeePerGasWei !== undefined
    ? BigInt(chain.gas.maxFeePerGasWei)
    : BigInt(chain.gas.defaultPriceWei) * 100n;
}

/**
 * `fees` cut to `cap`: the fee cap to at most `cap`, the tip to at most that fee cap. A transaction signed with them
 * may wait (a base fee above the cap), never pay past it (decision 0031).
 *
 * @example withinCap({ maxFeePerGas: 601n, maxPriorityFeePerGas: 1n }, 100n) // { maxFeePerGas: 100n, maxPriorityFeePerGas: 1n }
 */
export function withinCap(fees: TxFees, cap: bigint): TxFees {
  const maxFeePerGas = fees.maxFeePerGas < cap ? fees.maxFeePerGas : cap;
  return {
    maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas < maxFeePerGas ? fees.maxPriorityFeePerGas : maxFeePerGas,
  };
}
