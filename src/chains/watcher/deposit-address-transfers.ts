import { type Address, getAddress, type Hash, type PublicClient, zeroAddress } from 'viem';
import { erc20Abi } from '../abi/erc20.js';
import type { Database } from '../../database/database.js';

/** A native transfer into a watched deposit address, from a block's transactions. */
export interface DepositAddressTransfer {
  readonly requestId: string;
  readonly address: Address;
  readonly txHash: Hash;
  /** The transaction's sender. */
  readonly depositor: Address;
  readonly amount: bigint;
  /** The zero address for the native currency, else the token sent (another currency: given back). */
  readonly currency: Address;
  readonly block: number;
  readonly timestamp: number;
  readonly fee: bigint;
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
      if (receipt.status !== 'success') continue;
      transfers.push({
        requestId,
        address: getAddress(tx.to!),
        txHash: tx.hash,
        depositor: getAddress(tx.from),
        amount: tx.value,
        currency: zeroAddress,
        block: Number(number),
        timestamp: Number(block.timestamp),
        fee: receipt.gasUsed * receipt.effectiveGasPrice,
      });
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
  if (receipt.status !== 'success') return null;
  return {
    requestId,
    address: getAddress(tx.to!),
    txHash: tx.hash,
    depositor: getAddress(tx.from),
    amount: tx.value,
    currency: zeroAddress,
    block: Number(tx.blockNumber),
    timestamp: Number(block.timestamp),
    fee: receipt.gasUsed * receipt.effectiveGasPrice,
  };
}

/**
 * Token transfers (`Transfer` logs of `tokens`, the chain's configured currencies) into watched addresses in blocks
 * `from`..`to`: another currency than a deposit address takes, to be given back. One `eth_getLogs` for the range,
 * filtered here (an RPC's topic filter would need every watched address); the first such log of a transaction counts.
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
    if (transfers.some((transfer) => transfer.txHash === log.transactionHash)) continue;
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
