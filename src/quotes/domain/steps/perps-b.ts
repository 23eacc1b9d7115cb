import type { Hex } from 'viem';
import { QuoteError } from '../quote-error.js';
import { type PerpsBTransferData, singleItemStep, type Step } from './step.js';

/** Perps exchange B's chain id in quotes. */
export const PERPS_B_CHAIN_ID = 3586256;

/** Perps exchange B's asset index of USDC. */
export const PERPS_B_USDC_ASSET_INDEX = 3;

/** Route types of an account on exchange B: its perps and its spot balance. */
export const PERPS_B_ROUTE_PERPS = 0;
export const PERPS_B_ROUTE_SPOT = 1;

export interface PerpsBTransferParameters {
  readonly requestId: Hex;
  /** The solver's account index (a numeric string in the chain config). */
  readonly toAccountIndex: string;
  readonly amount: bigint;
  /** USDC fee covering the exchange's execution, smallest unit. */
  readonly usdcFee: bigint;
  readonly assetIndex: number;
  readonly fromRouteType: number;
  readonly toRouteType: number;
}

/**
 * `deposit` (transaction): a `transfer` from the user's account to the solver's account, with the request id as its
 * memo so the transfer is matched to the order. The client signs and sends it with the exchange's own signer.
 */
export function buildPerpsBTransferStep(parameters: PerpsBTransferParameters): Step<PerpsBTransferData> {
  return singleItemStep({
    id: 'deposit',
    action: 'Confirm transaction in your wallet',
    description: 'Transfer the funds to the solver on the exchange',
    kind: 'transaction',
    requestId: parameters.requestId,
    data: {
      action: {
        type: 'transfer',
        parameters: {
          type: 'transfer',
          toAccountIndex: safeNumber(BigInt(parameters.toAccountIndex), 'toAccountIndex'),
          assetIndex: parameters.assetIndex,
          fromRouteType: parameters.fromRouteType,
          toRouteType: parameters.toRouteType,
          amount: safeNumber(parameters.amount, 'amount'),
          usdcFee: safeNumber(parameters.usdcFee, 'usdcFee'),
          memo: parameters.requestId,
        },
      },
    },
  });
}

/** The spec types these as JSON numbers: refuse what a number cannot hold exactly. */
function safeNumber(value: bigint, field: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new QuoteError('INVALID_INPUT', `${field} does not fit the exchange's transfer: ${value}`, {
      field,
      max: Number.MAX_SAFE_INTEGER.toString(),
    });
  }
  return Number(value);
}
