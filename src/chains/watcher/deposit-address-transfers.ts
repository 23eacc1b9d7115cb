import {
  type Address,
  decodeFunctionData,
  getAddress,
  type Hash,
  type PublicClient,
  zeroAddress,
} from 'viem';
import { depositAddressFactoryAbi } from '../abi/deposit-address-factory.js';
import { erc20Abi } from '../abi/erc20.js';
import type { Database } from '../../database/database.js';

/** A native transfer into a watched deposit address, from a block's transactions. */
export interface DepositAddressTransfer {
  readonly requestId: string;
  readonly address: Address;
  /** The transaction, or `balance-<address>` for value found by the address's balance. */
  readonly txHash: string;
  /** The transaction's sender; the zero address when found by the balance. */
  readonly depositor: Address;
  readonly observedBy?: 'balance';
  readonly amount: bigint;
  /** The zero address for the native currency, else the token sent (another currency: given back). */
  readonly currency: Address;
  readonly block: number;
  readonly timestamp: number;
  readonly fee: bigint;
}

/**
 * Value found by balance at deposit addresses that have no native transfer recorded yet (a refused token does not
 * count) and whose quote has not expired (an hour of grace): what reached them from inside a contract call, which a block's transactions do not show. One
 * `eth_getBalance` per such address at `block`, run once per watcher round after that round's transfers were
 * recorded (so a top-level transfer up to `block` is never counted twice). No sender or transaction is known.
 */
export async function depositAddressBalances(
  db: Database,
  client: PublicClient,
  chainId: number,
  block: bigint,
): Promise<DepositAddressTransfer[]> {
  const { rows } = await db.query<{ address: string; request_id: string }>(
    `SELECT address, request_id FROM deposit_addresses
      WHERE chain_id = $1 AND NOT transfer_seen AND expires_at > now() - interval '1 hour'`,
    [chainId],
  );
  if (rows.length === 0) return [];
  const balances = await Promise.all(
    rows.map((row) => client.getBalance({ address: row.address as Address, blockNumber: block })),
  );
  const funded = rows.flatMap((row, i) => (balances[i] > 0n ? [{ ...row, amount: balances[i] }] : []));
  if (funded.length === 0) return [];
  const { timestamp } = await client.getBlock({ blockNumber: block });
  return funded.map((row) => ({
    requestId: row.request_id,
    address: getAddress(row.address),
    txHash: `balance-${row.address.toLowerCase()}`,
    depositor: zeroAddress,
    observedBy: 'balance' as const,
    amount: row.amount,
    currency: zeroAddress,
    block: Number(block),
    timestamp: Number(timestamp),
    fee: 0n,
  }));
}

/** Marks an address as having a native transfer recorded: its balance is no longer checked. */
export async function markDepositAddressSeen(db: Database, chainId: number, address: string): Promise<void> {
  await db.query('UPDATE deposit_addresses SET transfer_seen = true WHERE chain_id = $1 AND address = $2', [
    chainId,
    address.toLowerCase(),
  ]);
}

/** The deposit addresses watched on a chain now (lower-cased address → request id). */
export async function watchedDepositAddresses(db: Database, chainId: number): Promise<Map<string, string>> {
  const { rows } = await db.query<{ address: string; request_id: string }>(
    'SELECT address, request_id FROM deposit_addresses WHERE chain_id = $1 AND watch_until > now()',
    [chainId],
  );
  return new Map(rows.map((row) => [row.address, row.request_id]));
}

/**
 * The transfers into `watched` addresses in blocks `from`..`to`: transactions whose `to` is a watched address, with
 * value, that succeeded. A plain transfer emits no log, so the blocks' transactions are read (one `eth_getBlockByNumber`
 * with transactions per block, one receipt per match; nothing at all while no address is watched). Value that
 * reaches an address from inside another contract's call is not seen here; it stays at the address for the recovery
 * address to pull (docs/deposit-addresses.md, "What the watcher sees").
 *
 * @example const transfers = await depositAddressTransfers(client, watched, 100n, 110n)
 */
export async function depositAddressTransfers(
  client: PublicClient,
  watched: ReadonlyMap<string, string>,
  from: bigint,
  to: bigint,
): Promise<DepositAddressTransfer[]> {
  if (watched.size === 0 || to < from) return [];
  const transfers: DepositAddressTransfer[] = [];
  for (let number = from; number <= to; number++) {
    const block = await client.getBlock({ blockNumber: number, includeTransactions: true });
    for (const tx of block.transactions) {
      const requestId = tx.to ? watched.get(tx.to.toLowerCase()) : undefined;
      if (!requestId || tx.value === 0n) continue;
      const receipt = await client.getTransactionReceipt({ hash: tx.hash });
      if (receipt.status === 'success') transfers.push(nativeTransfer(requestId, tx, receipt, block));
    }
  }
  return transfers;
}

/**
 * One transaction as a transfer into a watched deposit address (`POST /transactions/index`), or null when it is not
 * one: not to a watched address, without value, or failed.
 */
export async function depositAddressTransferOf(
  client: PublicClient,
  watched: ReadonlyMap<string, string>,
  hash: Hash,
): Promise<DepositAddressTransfer | null> {
  const tx = await client.getTransaction({ hash });
  const requestId = tx.to ? watched.get(tx.to.toLowerCase()) : undefined;
  if (!requestId || tx.value === 0n || tx.blockNumber === null) return null;
  const [receipt, block] = await Promise.all([
    client.getTransactionReceipt({ hash }),
    client.getBlock({ blockNumber: tx.blockNumber }),
  ]);
  return receipt.status === 'success' ? nativeTransfer(requestId, tx, receipt, block) : null;
}

/** A successful transaction with value into a watched address, as the transfer the watcher records. */
function nativeTransfer(
  requestId: string,
  tx: { readonly hash: Hash; readonly to: Address | null; readonly from: Address; readonly value: bigint },
  receipt: { readonly gasUsed: bigint; readonly effectiveGasPrice: bigint },
  block: { readonly number: bigint | null; readonly timestamp: bigint },
): DepositAddressTransfer {
  return {
    requestId,
    address: getAddress(tx.to!),
    txHash: tx.hash,
    depositor: getAddress(tx.from),
    amount: tx.value,
    currency: zeroAddress,
    block: Number(block.number),
    timestamp: Number(block.timestamp),
    fee: receipt.gasUsed * receipt.effectiveGasPrice,
  };
}

/**
 * Token transfers (`Transfer` logs of `tokens`, the chain's configured currencies) into watched addresses in blocks
 * `from`..`to`: another currency than a deposit address takes, to be given back. One `eth_getLogs` for the range,
 * filtered here (an RPC's topic filter would need every watched address); per transaction and address, the first
 * token counts (its logs there summed).
 */
export async function depositAddressTokenTransfers(
  client: PublicClient,
  watched: ReadonlyMap<string, string>,
  tokens: readonly Address[],
  from: bigint,
  to: bigint,
): Promise<DepositAddressTransfer[]> {
  if (watched.size === 0 || tokens.length === 0 || to < from) return [];
  const logs = await client.getLogs({
    address: [...tokens],
    event: erc20Abi.find((item) => item.type === 'event' && item.name === 'Transfer')!,
    fromBlock: from,
    toBlock: to,
  });
  const transfers: DepositAddressTransfer[] = [];
  const blocks = new Map<bigint, Promise<{ timestamp: bigint }>>();
  for (const log of logs) {
    const args = log.args as { from?: Address; to?: Address; value?: bigint };
    const requestId = args.to ? watched.get(args.to.toLowerCase()) : undefined;
    if (!requestId || !args.value || !log.transactionHash || log.blockNumber === null) continue;
    // One transfer per transaction and address (one batch may pay several addresses; each is given back): logs
    // of the same token to that address add up, another token there stays for `recoverToken`.
    const index = transfers.findIndex(
      (transfer) =>
        transfer.txHash === log.transactionHash && transfer.address.toLowerCase() === args.to!.toLowerCase(),
    );
    if (index >= 0) {
      const first = transfers[index];
      if (first.currency.toLowerCase() === log.address.toLowerCase()) {
        transfers[index] = { ...first, amount: first.amount + args.value };
      }
      continue;
    }
    if (!blocks.has(log.blockNumber))
      blocks.set(log.blockNumber, client.getBlock({ blockNumber: log.blockNumber }));
    const [block, receipt] = await Promise.all([
      blocks.get(log.blockNumber)!,
      client.getTransactionReceipt({ hash: log.transactionHash }),
    ]);
    transfers.push({
      requestId,
      address: getAddress(args.to!),
      txHash: log.transactionHash,
      depositor: getAddress(args.from!),
      amount: args.value,
      currency: getAddress(log.address),
      block: Number(log.blockNumber),
      timestamp: Number(block.timestamp),
      fee: receipt.gasUsed * receipt.effectiveGasPrice,
    });
  }
  return transfers;
}

/**
 * Whether a depository deposit is the solver's sweep for `requestId`: its transaction called the factory's `sweep`
 * (owner only) for that order. Only such a deposit is dated by the transfer the request took; one made inside
 * another call to the factory (a give-back or a recover paying a contract, or a delegated account, that deposits)
 * is not. One transaction read, and only for transactions sent to the factory.
 */
export async function isDepositAddressSweep(
  client: PublicClient,
  factory: string | undefined,
  receipt: { readonly to: Address | null; readonly transactionHash: Hash },
  requestId: string,
): Promise<boolean> {
  if (!factory || receipt.to?.toLowerCase() !== factory.toLowerCase()) return false;
  const tx = await client.getTransaction({ hash: receipt.transactionHash });
  try {
    const call = decodeFunctionData({ abi: depositAddressFactoryAbi, data: tx.input });
    return call.functionName === 'sweep' && String(call.args[0]).toLowerCase() === requestId.toLowerCase();
  } catch {
    return false;
  }
}
