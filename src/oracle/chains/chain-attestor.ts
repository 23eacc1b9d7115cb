import type { Hex } from 'viem';
import { ApiError } from '../../common/http/api-error.js';
import type { ChainInfo } from '../../chains/chain.js';
import type {
  DepositoryDepositMessage,
  DepositoryWithdrawalMessage,
  SolverPaymentMessage,
} from '../messages/oracle-messages.js';

/** The oracle's names of the VM families (the spec's identifiers). */
export const ORACLE_VM_TYPES = ['evm-vm', 'svm-vm', 'btc-vm', 'perpsa-vm', 'perpsb-vm', 'trx-vm'] as const;
export type OracleVmType = (typeof ORACLE_VM_TYPES)[number];

/** Ferry's chain VM types (chains config) as the oracle names them. */
export const ORACLE_VM_TYPE_OF: Readonly<Record<ChainInfo['vmType'], OracleVmType>> = {
  evm: 'evm-vm',
  svm: 'svm-vm',
  'perps-a': 'perpsa-vm',
  'perps-b': 'perpsb-vm',
};

export interface DepositQuery {
  readonly transactionId: Hex;
  /** Which deposit of the transaction: its order id, and/or its event's log index. */
  readonly depositId?: Hex;
  readonly logIndex?: number;
}

export interface WithdrawalQuery {
  readonly transactionId: Hex;
  readonly logIndex?: number;
}

/** What a fill or a refund must show: a payment of `currency` to `recipient`, at least `minimumAmount`, for `orderId`. */
export interface PaymentQuery {
  readonly transactionId: Hex;
  readonly orderId: Hex;
  readonly recipient: Hex;
  readonly currency: Hex;
  readonly minimumAmount: bigint;
}

/**
 * One VM family's reading of its chains: each method reads a final transaction and answers the message's `result`,
 * or throws an ApiError saying what was found instead (TRANSACTION_NOT_FOUND, TRANSACTION_NOT_FINAL,
 * ATTESTATION_MISMATCH, AMBIGUOUS_ATTESTATION, CHAIN_RPC_UNAVAILABLE).
 */
export interface ChainAttestor {
  deposit(chain: ChainInfo, query: DepositQuery): Promise<DepositoryDepositMessage['result']>;
  withdrawal(chain: ChainInfo, query: WithdrawalQuery): Promise<DepositoryWithdrawalMessage['result']>;
  payment(chain: ChainInfo, query: PaymentQuery): Promise<SolverPaymentMessage['result']>;
}

/** A VM family without a backend in this build: every attestation on its chains is 400 VM_NOT_CONFIGURED. */
export class UnconfiguredAttestor implements ChainAttestor {
  constructor(private readonly vmType: OracleVmType) {}

  deposit(chain: ChainInfo): Promise<never> {
    return this.refuse(chain);
  }

  withdrawal(chain: ChainInfo): Promise<never> {
    return this.refuse(chain);
  }

  payment(chain: ChainInfo): Promise<never> {
    return this.refuse(chain);
  }

  private refuse(chain: ChainInfo): Promise<never> {
    return Promise.reject(
      new ApiError(
        'VM_NOT_CONFIGURED',
        `Chain ${chain.id} is a ${this.vmType} chain, and this oracle has no ${this.vmType} backend configured`,
        { chainId: chain.id, vmType: this.vmType },
      ),
    );
  }
}
