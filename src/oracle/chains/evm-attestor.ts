import {
  getAddress,
  type Hex,
  parseEventLogs,
  type PublicClient,
  type Transaction,
  type TransactionReceipt,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
} from 'viem';
import { callExecutorAbi } from '../../chains/abi/call-executor.js';
import { depositoryAbi, depositoryAdminAbi } from '../../chains/abi/depository.js';
import { erc20Abi } from '../../chains/abi/erc20.js';
import type { ChainInfo } from '../../chains/chain.js';
import { wrongChainOf } from '../../chains/chain-checked-fetch.js';
import type { ReadClients } from '../../chains/read-clients.js';
import { ApiError } from '../../common/http/api-error.js';
import type {
  DepositoryDepositMessage,
  DepositoryWithdrawalMessage,
  SolverPaymentMessage,
} from '../messages/oracle-messages.js';
import type { ChainAttestor, DepositQuery, PaymentQuery, WithdrawalQuery } from './chain-attestor.js';

const NATIVE = '0x0000000000000000000000000000000000000000';

interface FinalTransaction {
  readonly transaction: Transaction;
  readonly receipt: TransactionReceipt;
}

const same = (a: string | null | undefined, b: string | null | undefined): boolean =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

const mismatch = (message: string, found: unknown): ApiError =>
  new ApiError('ATTESTATION_MISMATCH', message, { found });

/**
 * Attestations on EVM chains, read with viem from the chain's RPC (`rpcUrl` in the chains config). A transaction is
 * read only once final (`finality`), and only successful transactions count; every fact comes from the receipt's logs
 * of Ferry's own contracts (the depository, the call executor) or from the transaction itself.
 */
export class EvmAttestor implements ChainAttestor {
  constructor(private readonly clients: ReadClients) {}

  async deposit(chain: ChainInfo, query: DepositQuery): Promise<DepositoryDepositMessage['result']> {
    const { receipt } = await this.finalTransaction(chain, query.transactionId);
    const deposits = parseEventLogs({ abi: depositoryAbi, logs: receipt.logs, strict: true })
      .filter((log) => same(log.address, chain.depository))
      .map((log) => ({
        depository: getAddress(log.address) as Hex,
        depositId: log.args.id,
        depositor: getAddress(log.args.depositor) as Hex,
        currency: (log.eventName === 'Erc20Deposit' ? getAddress(log.args.token) : NATIVE) as Hex,
        amount: log.args.amount.toString(),
        logIndex: String(log.logIndex),
      }));
    const matching = deposits.filter(
      (deposit) =>
        (query.depositId === undefined || same(deposit.depositId, query.depositId)) &&
        (query.logIndex === undefined || deposit.logIndex === String(query.logIndex)),
    );
    return only(matching, deposits, `deposit into the depository ${chain.depository}`);
  }

  async withdrawal(chain: ChainInfo, query: WithdrawalQuery): Promise<DepositoryWithdrawalMessage['result']> {
    const { receipt } = await this.finalTransaction(chain, query.transactionId);
    const withdrawals = parseEventLogs({
      abi: depositoryAdminAbi,
      logs: receipt.logs,
      eventName: 'Withdrawal',
    })
      .filter((log) => same(log.address, chain.depository))
      .map((log) => ({
        depository: getAddress(log.address) as Hex,
        currency: getAddress(log.args.token) as Hex,
        recipient: getAddress(log.args.to) as Hex,
        amount: log.args.amount.toString(),
        logIndex: String(log.logIndex),
      }));
    const matching = withdrawals.filter(
      (withdrawal) => query.logIndex === undefined || withdrawal.logIndex === String(query.logIndex),
    );
    return only(matching, withdrawals, `withdrawal from the depository ${chain.depository}`);
  }

  /**
   * A fill or a refund: a successful transaction from the chain's solver, tagged with the order id, paying at least
   * the minimum of the currency to the recipient. Tagged: a direct payment's calldata ends with the order id (native
   * value to the recipient, or an ERC-20 `transfer` to it: the token's `Transfer` logs from the solver count); a fill
   * with destination calls is the call executor's `Filled` event for the order.
   */
  async payment(chain: ChainInfo, query: PaymentQuery): Promise<SolverPaymentMessage['result']> {
    const { transaction, receipt } = await this.finalTransaction(chain, query.transactionId);
    if (!same(transaction.from, chain.solver)) {
      throw mismatch(`Transaction was sent by ${transaction.from}, not the solver ${chain.solver}`, {
        from: transaction.from,
      });
    }
    const amount = same(transaction.to, chain.callExecutor)
      ? executorPayment(receipt, chain, query)
      : directPayment(transaction, receipt, query);
    if (amount < query.minimumAmount) {
      throw mismatch(
        `Transaction paid ${amount} of ${query.currency} to ${query.recipient}, below the minimum ${query.minimumAmount}`,
        { amount: amount.toString() },
      );
    }
    return {
      solver: getAddress(transaction.from) as Hex,
      recipient: getAddress(query.recipient) as Hex,
      currency: getAddress(query.currency) as Hex,
      amount: amount.toString(),
    };
  }

  /** The transaction and its receipt, once mined successfully in a final block. */
  private async finalTransaction(chain: ChainInfo, transactionId: Hex): Promise<FinalTransaction> {
    if (!chain.rpcUrl) {
      throw new ApiError(
        'CHAIN_RPC_UNAVAILABLE',
        `Chain ${chain.id} has no RPC configured here${chain.rpcUrlVariable ? ` (set ${chain.rpcUrlVariable})` : ''}`,
        { chainId: chain.id, reason: 'not-configured' },
      );
    }
    const client = this.clients.of(chain.rpcUrl, chain.id);
    const { transaction, receipt, finalBlock } = await read(chain, async () => {
      const [receipt, transaction] = await Promise.all([
        client.getTransactionReceipt({ hash: transactionId }),
        client.getTransaction({ hash: transactionId }),
      ]);
      return { receipt, transaction, finalBlock: await finalBlockNumber(client, chain) };
    }).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError || error instanceof TransactionNotFoundError) {
        throw new ApiError(
          'TRANSACTION_NOT_FOUND',
          `Chain ${chain.id} has no mined transaction ${transactionId}`,
          {
            chainId: chain.id,
            transactionId,
          },
        );
      }
      throw error;
    });
    if (receipt.blockNumber > finalBlock) {
      throw new ApiError('TRANSACTION_NOT_FINAL', 'Transaction is not final yet', {
        chainId: chain.id,
        transactionId,
        blockNumber: receipt.blockNumber.toString(),
        finalBlockNumber: finalBlock.toString(),
      });
    }
    if (receipt.status !== 'success') throw mismatch('Transaction reverted', { status: receipt.status });
    return { transaction, receipt };
  }
}

/** The highest final block: the chain's `finalized` block, or `blocks` deep from the head (1: the head itself). */
async function finalBlockNumber(client: PublicClient, chain: ChainInfo): Promise<bigint> {
  if (chain.finality.tag === 'finalized') {
    return (await client.getBlock({ blockTag: 'finalized' })).number;
  }
  return (await client.getBlockNumber({ cacheTime: 0 })) - BigInt(Math.max(chain.finality.blocks, 1) - 1);
}

/**
 * Runs a read; anything but "not found" from the RPC is CHAIN_RPC_UNAVAILABLE: `wrong-chain` when the RPC serves
 * another chain (nothing was read), else `rpc-failed`.
 */
async function read<T>(chain: ChainInfo, reading: () => Promise<T>): Promise<T> {
  try {
    return await reading();
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError || error instanceof TransactionNotFoundError)
      throw error;
    const wrong = wrongChainOf(error);
    if (wrong) {
      throw new ApiError('CHAIN_RPC_UNAVAILABLE', wrong.message, {
        chainId: chain.id,
        reason: 'wrong-chain',
        servedChainId: wrong.servedChainId,
      });
    }
    throw new ApiError('CHAIN_RPC_UNAVAILABLE', `Chain ${chain.id}'s RPC failed: ${shortReason(error)}`, {
      chainId: chain.id,
      reason: 'rpc-failed',
    });
  }
}

function shortReason(error: unknown): string {
  const message =
    error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : '';
  return message.split('\n')[0].slice(0, 200) || 'no answer';
}

/** The one matching event; none: what the transaction held instead; several: ask which. */
function only<T extends { logIndex: string }>(matching: readonly T[], all: readonly T[], what: string): T {
  if (matching.length === 1) return matching[0];
  if (matching.length === 0) {
    throw mismatch(
      all.length === 0
        ? `Transaction holds no ${what}`
        : `Transaction holds no matching ${what}; it holds ${all.length} other${all.length > 1 ? 's' : ''}`,
      all,
    );
  }
  throw new ApiError(
    'AMBIGUOUS_ATTESTATION',
    `Transaction holds ${matching.length} matching events (${what}); name one with logIndex`,
    { found: matching },
  );
}

/** A payment the solver made itself: native value to the recipient, or the token's transfers to it. */
function directPayment(transaction: Transaction, receipt: TransactionReceipt, query: PaymentQuery): bigint {
  if (!transaction.input.toLowerCase().endsWith(query.orderId.slice(2).toLowerCase())) {
    throw mismatch(`Transaction is not tagged with order ${query.orderId}`, { input: transaction.input });
  }
  if (same(query.currency, NATIVE)) {
    if (!same(transaction.to, query.recipient)) {
      throw mismatch(`Transaction sends the native currency to ${transaction.to}, not ${query.recipient}`, {
        to: transaction.to,
        value: transaction.value.toString(),
      });
    }
    return transaction.value;
  }
  const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' });
  const paid = transfers.filter(
    (log) =>
      same(log.address, query.currency) &&
      same(log.args.from, transaction.from) &&
      same(log.args.to, query.recipient),
  );
  if (paid.length === 0) {
    throw mismatch(`Transaction transfers no ${query.currency} from the solver to ${query.recipient}`, {
      transfers: transfers.map((log) => ({
        token: getAddress(log.address),
        from: log.args.from,
        to: log.args.to,
        amount: log.args.value.toString(),
      })),
    });
  }
  return paid.reduce((sum, log) => sum + log.args.value, 0n);
}

/** A fill through the call executor: its `Filled` event for the order, currency and recipient. */
function executorPayment(receipt: TransactionReceipt, chain: ChainInfo, query: PaymentQuery): bigint {
  const filled = parseEventLogs({ abi: callExecutorAbi, logs: receipt.logs, eventName: 'Filled' }).filter(
    (log) => same(log.address, chain.callExecutor) && same(log.args.orderId, query.orderId),
  );
  if (filled.length === 0) {
    throw mismatch(`The call executor filled no order ${query.orderId} in this transaction`, {});
  }
  const paid = filled.filter(
    (log) => same(log.args.token, query.currency) && same(log.args.recipient, query.recipient),
  );
  if (paid.length === 0) {
    throw mismatch(
      `The call executor filled order ${query.orderId} with no ${query.currency} to ${query.recipient}`,
      {
        filled: filled.map((log) => ({
          token: log.args.token,
          recipient: log.args.recipient,
          amount: log.args.amount.toString(),
        })),
      },
    );
  }
  return paid.reduce((sum, log) => sum + log.args.amount, 0n);
}
