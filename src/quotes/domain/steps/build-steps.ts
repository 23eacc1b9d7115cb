import { type Address, type Hex, zeroAddress } from 'viem';
import type { ChainCurrency, ChainInfo } from '../../../chains/chain.js';
import { QuoteError } from '../quote-error.js';
import type { DepositAddress } from '../../../requests/domain/records.js';
import {
  buildDepositAddress,
  buildDepositAddressStep,
  type DepositAddressParameters,
  type DepositAddressType,
} from './deposit-address.js';
import { buildErc20DepositSteps, buildNativeDepositStep } from './evm-deposit.js';
import { buildPermitStep } from './permit.js';
import {
  buildNonceMappingStep,
  buildSendAssetStep,
  DEFAULT_SIGNATURE_CHAIN_ID,
  perpsADexOf,
  PERPS_A_PERPS_USDC,
} from './perps-a.js';
import { buildPerpsBTransferStep, PERPS_B_ROUTE_PERPS, PERPS_B_USDC_ASSET_INDEX } from './perps-b.js';
import { assertAmount, type EvmGasFields, evmAddress, requestIdOf, type Step } from './step.js';
import { buildSvmDepositStep } from './svm-deposit.js';
import { SVM_NATIVE_CURRENCY } from './svm-programs.js';

/** `useDepositAddress`: the user sends to a per-request address instead of calling the depository. */
export interface DepositAddressOptions {
  readonly type: DepositAddressType;
  /** Defaults to `refundTo`, then the user. */
  readonly recoveryAddress?: string | null;
  readonly refundTo?: string | null;
}

interface StepsInputBase {
  /** The quote's request id = `buildOrder(...).orderId`. */
  readonly requestId: Hex;
  /** The origin chain: where the user pays. Its `vmType` must equal the input's. */
  readonly origin: ChainInfo;
  /** The currency the user deposits on the origin chain (after any SVM origin swap). */
  readonly currency: ChainCurrency;
  /** The deposited amount, smallest unit. */
  readonly amount: bigint;
  /** The quote's `user`, in the origin chain's format (EVM address, SVM base58, perps B account index). */
  readonly user: string;
  readonly usePermit?: boolean;
  readonly depositAddress?: DepositAddressOptions | null;
}

/** An EVM origin: native deposit, ERC-20 approve + deposit, EIP-3009 permit, or a deposit address. */
export interface EvmStepsInput extends StepsInputBase {
  readonly vmType: 'evm';
  /** The user's allowance for the depository, or null when unknown (the approval is then included). */
  readonly allowance: bigint | null;
  /** Unix seconds after which a `usePermit` authorization expires (the quote's deadline); needed with `usePermit`. */
  readonly permitValidBefore?: number;
  readonly gas?: EvmGasFields;
}

/** A withdrawal from perps exchange A (origin 1337). */
export interface PerpsAStepsInput extends StepsInputBase {
  readonly vmType: 'perps-a';
  /** Must be `v2`. */
  readonly protocolVersion?: string;
  /** The nonce both steps share, e.g. the quote time in unix milliseconds. */
  readonly nonce: number;
  /** Default 1; clients replace it with their wallet's active chain id. */
  readonly signatureChainId?: number;
  /** The NonceMapping domain's verifying contract; defaults to the chain's `depository`. */
  readonly verifyingContract?: string;
  /** The exchange network name in the action; default `Mainnet`. */
  readonly perpsChain?: string;
  /** The exchange's token string; default `<symbol>:<spot token id>` (perps USDC: the chain's spot USDC). */
  readonly token?: string;
  /** Where the solver receives; default the source dex. */
  readonly destinationDex?: string;
  readonly fromSubAccount?: string;
}

/** A withdrawal from perps exchange B (origin 3586256). */
export interface PerpsBStepsInput extends StepsInputBase {
  readonly vmType: 'perps-b';
  /** USDC fee covering the exchange's execution, smallest unit. */
  readonly usdcFee: bigint;
  readonly fromRouteType?: number;
  readonly toRouteType?: number;
}

/** An SVM origin: a SOL or SPL transfer into the depository vault with the request id as memo (docs/svm.md). */
export interface SvmStepsInput extends StepsInputBase {
  readonly vmType: 'svm';
  /** The chain's latest blockhash, read from its RPC (never a stand-in: no RPC, no SVM quote). */
  readonly recentBlockhash: string;
}

export type BuildStepsInput = EvmStepsInput | PerpsAStepsInput | PerpsBStepsInput | SvmStepsInput;

/**
 * The quote's `steps`, in the order the client executes them. Throws `QuoteError` for an option the route cannot
 * take (`UNSUPPORTED_OPTION`), a malformed address (`INVALID_ADDRESS`) or an SVM transaction over the size limit
 * (`ROUTE_TOO_LARGE`).
 */
export function buildSteps(input: BuildStepsInput): Step[] {
  if (input.vmType !== input.origin.vmType) {
    throw new TypeError(
      `Steps for a ${input.vmType} origin, but chain ${input.origin.id} is ${input.origin.vmType}`,
    );
  }
  assertAmount(input.amount, 'amount');
  if (input.vmType !== 'evm') rejectEvmOnlyOptions(input);
  switch (input.vmType) {
    case 'evm':
      return evmSteps(input);
    case 'perps-a':
      return perpsASteps(input);
    case 'perps-b':
      return perpsBSteps(input);
    case 'svm':
      return svmSteps(input);
  }
}

function rejectEvmOnlyOptions(input: BuildStepsInput): void {
  const option = input.usePermit ? 'usePermit' : input.depositAddress ? 'useDepositAddress' : null;
  if (option !== null) {
    throw new QuoteError('UNSUPPORTED_OPTION', `${option} is only available from EVM chains`, {
      option,
      originChainId: input.origin.id,
    });
  }
}

function evmSteps(input: EvmStepsInput): Step[] {
  const requestId = requestIdOf(input.requestId);
  const user = evmAddress(input.user, 'user');
  const depository = evmAddress(input.origin.depository, 'depository');
  const native = isEvmNative(input.currency);
  const common = {
    requestId,
    chainId: input.origin.id,
    depository,
    user,
    amount: input.amount,
    gas: input.gas,
  };
  if (input.depositAddress) {
    if (!native || input.usePermit) {
      throw new QuoteError(
        'UNSUPPORTED_OPTION',
        'useDepositAddress is only available for native-currency deposits, without usePermit',
        { option: 'useDepositAddress', currency: input.currency.address },
      );
    }
    return [buildDepositAddressStep({ ...common, ...depositAddressParameters(input, input.depositAddress) })];
  }
  if (input.usePermit) return [permitStep(input, common)];
  if (native) return [buildNativeDepositStep(common)];
  return buildErc20DepositSteps({
    ...common,
    token: evmAddress(input.currency.address, 'currency'),
    symbol: input.currency.symbol,
    allowance: input.allowance,
  });
}

/**
 * The request record's `depositAddress` for a `useDepositAddress` quote (the same address its step names), else
 * null. Call after `buildSteps`, which rejects the inputs a deposit address cannot take.
 */
export function depositAddressOf(input: BuildStepsInput): DepositAddress | null {
  if (input.vmType !== 'evm' || !input.depositAddress) return null;
  return buildDepositAddress(depositAddressParameters(input, input.depositAddress));
}

function depositAddressParameters(
  input: EvmStepsInput,
  options: DepositAddressOptions,
): DepositAddressParameters {
  if (!input.origin.depositAddressFactory) {
    throw new QuoteError(
      'DEPOSIT_ADDRESS_UNAVAILABLE',
      `Chain ${input.origin.id} has no deposit-address factory: use the depository deposit step (drop useDepositAddress)`,
      { option: 'useDepositAddress', originChainId: input.origin.id },
    );
  }
  return {
    requestId: requestIdOf(input.requestId),
    factory: evmAddress(input.origin.depositAddressFactory, 'depositAddressFactory'),
    type: options.type,
    user: evmAddress(input.user, 'user'),
    recoveryAddress: options.recoveryAddress ? evmAddress(options.recoveryAddress, 'recoveryAddress') : null,
    refundTo: options.refundTo ? evmAddress(options.refundTo, 'refundTo') : null,
  };
}

function permitStep(
  input: EvmStepsInput,
  common: { requestId: Hex; chainId: number; depository: Address; user: Address; amount: bigint },
): Step {
  const { currency } = input;
  if (isEvmNative(currency) || !currency.supportsPermit || currency.eip712 === undefined) {
    throw new QuoteError(
      'UNSUPPORTED_OPTION',
      `usePermit is not available for ${currency.symbol}: no EIP-3009`,
      {
        option: 'usePermit',
        currency: currency.address,
      },
    );
  }
  if (input.permitValidBefore === undefined) throw new TypeError('usePermit needs permitValidBefore');
  return buildPermitStep({
    ...common,
    token: evmAddress(currency.address, 'currency'),
    tokenDomain: currency.eip712,
    validAfter: 0,
    validBefore: input.permitValidBefore,
  });
}

function perpsASteps(input: PerpsAStepsInput): Step[] {
  if (input.protocolVersion !== 'v2') {
    throw new QuoteError(
      'UNSUPPORTED_OPTION',
      'Withdrawals from perps exchange A need protocolVersion "v2"',
      { option: 'protocolVersion', expected: 'v2', got: input.protocolVersion ?? null },
    );
  }
  if (!Number.isSafeInteger(input.nonce) || input.nonce < 0) {
    throw new TypeError(`A perps exchange A nonce is a non-negative safe integer; got ${input.nonce}`);
  }
  const requestId = requestIdOf(input.requestId);
  const wallet = evmAddress(input.user, 'user');
  const { dex, spotId } = perpsADexOf(input.currency.address);
  return [
    buildNonceMappingStep({
      requestId,
      perpsChainName: input.origin.name,
      walletChainId: input.origin.id,
      wallet,
      depositor: wallet,
      nonce: input.nonce,
      signatureChainId: input.signatureChainId ?? DEFAULT_SIGNATURE_CHAIN_ID,
      verifyingContract: evmAddress(input.verifyingContract ?? input.origin.depository, 'verifyingContract'),
    }),
    buildSendAssetStep({
      requestId,
      perpsChain: input.perpsChain ?? 'Mainnet',
      destination: input.origin.solver.toLowerCase(),
      sourceDex: dex,
      destinationDex: input.destinationDex ?? dex,
      token: input.token ?? perpsAToken(input.origin, input.currency, spotId),
      amount: input.amount,
      decimals: input.currency.decimals,
      fromSubAccount: input.fromSubAccount ?? '',
      nonce: input.nonce,
    }),
  ];
}

/** `<symbol>:<spot token id>`; perps USDC (no spot id of its own) is sent as the chain's spot USDC. */
function perpsAToken(origin: ChainInfo, currency: ChainCurrency, spotId: string): string {
  if (spotId !== PERPS_A_PERPS_USDC) return `${currency.symbol}:${spotId}`;
  const spotUsdc = origin.currencies.find(
    (candidate) =>
      candidate.symbol.toUpperCase() === 'USDC' &&
      candidate.address.length === PERPS_A_PERPS_USDC.length &&
      candidate.address.toLowerCase() !== PERPS_A_PERPS_USDC,
  );
  if (spotUsdc === undefined) {
    throw new TypeError(
      `Chain ${origin.id} lists no spot USDC: perps USDC withdrawals need it (or pass token)`,
    );
  }
  return `USDC:${spotUsdc.address.toLowerCase()}`;
}

function perpsBSteps(input: PerpsBStepsInput): Step[] {
  if (!/^[0-9]+$/.test(input.user)) {
    throw new QuoteError('INVALID_ADDRESS', 'user is not a perps exchange B account index', {
      field: 'user',
    });
  }
  if (input.currency.address !== '0') {
    throw new QuoteError(
      'UNSUPPORTED_CURRENCY',
      'Withdrawals from perps exchange B are in perps USDC (currency "0")',
      {
        field: 'originCurrency',
      },
    );
  }
  if (!/^[0-9]+$/.test(input.origin.solver)) {
    throw new TypeError(
      `The solver of chain ${input.origin.id} is not an account index: ${input.origin.solver}`,
    );
  }
  return [
    buildPerpsBTransferStep({
      requestId: requestIdOf(input.requestId),
      toAccountIndex: input.origin.solver,
      amount: input.amount,
      usdcFee: input.usdcFee,
      assetIndex: PERPS_B_USDC_ASSET_INDEX,
      fromRouteType: input.fromRouteType ?? PERPS_B_ROUTE_PERPS,
      toRouteType: input.toRouteType ?? PERPS_B_ROUTE_PERPS,
    }),
  ];
}

function svmSteps(input: SvmStepsInput): Step[] {
  const isNative =
    input.currency.metadata.isNative === true || input.currency.address === SVM_NATIVE_CURRENCY;
  return [
    buildSvmDepositStep({
      requestId: requestIdOf(input.requestId),
      user: input.user,
      depository: input.origin.depository,
      currency: { address: input.currency.address, decimals: input.currency.decimals, isNative },
      amount: input.amount,
      recentBlockhash: input.recentBlockhash,
    }),
  ];
}

function isEvmNative(currency: ChainCurrency): boolean {
  return currency.metadata.isNative === true || currency.address.toLowerCase() === zeroAddress;
}
