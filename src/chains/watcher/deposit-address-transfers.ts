import { type Address, getAddress, type Hash, type PublicClient } from 'viem';
import type { Database } from '../../database/database.js';

/** A native transfer into a watched deposit address, from a block's transactions. */
export interface DepositAddressTransfer {
  readonly requestId: string;
  readonly address: Address;
  readonly txHash: Hash;
  /** The transaction's sender. */
  readonly depositor: Address;
  readonly amount: bigint;
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
    block: Number(tx.blockNumber),
    timestamp: Number(block.timestamp),
    fee: receipt.gasUsed * receipt.effectiveGasPrice,
  };
}
