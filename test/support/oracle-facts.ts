import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  toHex,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { callExecutorAbi } from '../../src/chains/abi/call-executor.js';
import { depositoryAbi, depositoryAdminAbi } from '../../src/chains/abi/depository.js';
import { erc20Abi } from '../../src/chains/abi/erc20.js';
import { transferIntent } from '../../src/solver/payments.js';
import { ChainClients } from './chain-clients.js';
import type { Devnet } from './devnet.js';

export const NATIVE = '0x0000000000000000000000000000000000000000' as Address;

const smartWalletAbi = parseAbi([
  'struct Call { address to; uint256 value; bytes data; }',
  'function executeBatch(Call[] calls) payable',
]);

/** A fresh 32-byte order id from a label. */
export const orderIdOf = (label: string): Hex => keccak256(toHex(`oracle-test:${label}`));

/**
 * The onchain facts the oracle attests, made for real on a devnet: deposits by the user, the solver's fills and
 * refunds in the shapes Ferry's solver sends them (src/solver/payments.ts, the call executor), the depository
 * owner's withdrawals, and the near misses each false case needs.
 */
export class OracleFacts {
  readonly clients: ChainClients;

  constructor(readonly chain: Devnet) {
    this.clients = new ChainClients([chain]);
  }

  get user(): Address {
    return this.chain.accounts.user.address;
  }

  get solver(): Address {
    return this.chain.accounts.solver.address;
  }

  depositNative(orderId: Hex, amount: bigint): Promise<TransactionReceipt> {
    return this.send(
      this.chain.accounts.user.privateKey,
      this.chain.deployment.depository,
      encodeFunctionData({ abi: depositoryAbi, functionName: 'depositNative', args: [this.user, orderId] }),
      amount,
    );
  }

  /** Two native deposits of `amount` for the same order in one transaction (the user's SmartWallet batch). */
  depositTwiceInOneTransaction(orderId: Hex, amount: bigint): Promise<TransactionReceipt> {
    const call = {
      to: this.chain.deployment.depository,
      value: amount,
      data: encodeFunctionData({
        abi: depositoryAbi,
        functionName: 'depositNative',
        args: [this.user, orderId],
      }),
    };
    return this.send(
      this.chain.accounts.user.privateKey,
      this.chain.deployment.smartWallet,
      encodeFunctionData({ abi: smartWalletAbi, functionName: 'executeBatch', args: [[call, call]] }),
      2n * amount,
    );
  }

  /** Approves the depository, then deposits `amount` USDC (the receipt of the deposit). */
  async depositUsdc(orderId: Hex, amount: bigint): Promise<TransactionReceipt> {
    const { usdc, depository } = this.chain.deployment;
    await this.send(
      this.chain.accounts.user.privateKey,
      usdc,
      encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [depository, amount] }),
    );
    return this.send(
      this.chain.accounts.user.privateKey,
      depository,
      encodeFunctionData({
        abi: depositoryAbi,
        functionName: 'depositErc20',
        args: [this.user, usdc, amount, orderId],
      }),
    );
  }

  /** The depository's owner (the solver) moves `amount` of `token` to `to`. */
  withdraw(token: Address, to: Address, amount: bigint): Promise<TransactionReceipt> {
    return this.send(
      this.chain.accounts.solver.privateKey,
      this.chain.deployment.depository,
      encodeFunctionData({ abi: depositoryAdminAbi, functionName: 'withdraw', args: [token, to, amount] }),
    );
  }

  /** A payment as the solver sends a fill without calls or a refund: `transferIntent`, from `key` (default: solver). */
  pay(
    currency: Address,
    recipient: Address,
    amount: bigint,
    orderId: Hex,
    key: Hex = this.chain.accounts.solver.privateKey,
  ): Promise<TransactionReceipt> {
    const intent = transferIntent(currency, recipient, amount, orderId);
    return this.send(key, intent.to, intent.data, intent.value);
  }

  /** A fill with destination calls (none here): the solver calls the call executor's `fill` with native value. */
  fillThroughExecutor(recipient: Address, amount: bigint, orderId: Hex): Promise<TransactionReceipt> {
    return this.send(
      this.chain.accounts.solver.privateKey,
      this.chain.deployment.callExecutor,
      encodeFunctionData({
        abi: callExecutorAbi,
        functionName: 'fill',
        args: [orderId, NATIVE, amount, recipient, []],
      }),
      amount,
    );
  }

  /** A plain transfer of ether from the user (no contract involved). */
  plainTransfer(to: Address, amount: bigint): Promise<TransactionReceipt> {
    return this.send(this.chain.accounts.user.privateKey, to, undefined, amount);
  }

  /**
   * A transaction from the solver that is mined and reverts: a `withdraw` of more than the depository holds, sent with
   * a fixed gas limit so no estimate refuses it first. The node reports the revert as an error; the hash is known
   * from the signed bytes.
   */
  async reverted(orderId: Hex): Promise<TransactionReceipt> {
    const account = privateKeyToAccount(this.chain.accounts.solver.privateKey);
    const wallet = createWalletClient({ transport: http(this.chain.rpcUrl), account });
    const data = encodeFunctionData({
      abi: depositoryAdminAbi,
      functionName: 'withdraw',
      args: [NATIVE, this.user, 10n ** 30n],
    });
    const request = await wallet.prepareTransactionRequest({
      to: this.chain.deployment.depository,
      data: `${data}${orderId.slice(2)}` as Hex,
      gas: 200_000n,
      chain: null,
    });
    const serializedTransaction = await wallet.signTransaction({ ...request, chain: null });
    await wallet.sendRawTransaction({ serializedTransaction }).catch(() => undefined);
    return this.clients
      .reader(this.chain.chainId)
      .waitForTransactionReceipt({ hash: keccak256(serializedTransaction) });
  }

  private send(key: Hex, to: Address, data?: Hex, value = 0n): Promise<TransactionReceipt> {
    return this.clients.send(this.chain.chainId, key, to, data, value);
  }
}
