import type { PublicClient } from 'viem';
import type { JournalEntry } from './transaction-journal.js';

/**
 * Whether the transaction that used `entry`'s nonce on chain is none of `candidates` (ours with that nonce): the
 * first block whose count of the account passes the nonce is found (searched back from the head, doubling, then
 * halved), and its transaction from the account with that nonce read. False when the node's answers do not agree
 * (a replica behind): not decided yet. Run only when no candidate has a receipt while the nonce is used.
 */
export async function takenByStranger(
  client: PublicClient,
  entry: JournalEntry,
  candidates: readonly JournalEntry[],
): Promise<boolean> {
  const passes = async (blockNumber: bigint) =>
    BigInt(await client.getTransactionCount({ address: entry.account, blockNumber })) > entry.nonce;
  let high = await client.getBlockNumber();
  if (!(await passes(high))) return false;
  // count(high) > nonce; count(low) <= nonce (or low is before the first block).
  let low = -1n;
  for (let step = 1n; high - step >= 0n; step *= 2n) {
    if (!(await passes(high - step))) {
      low = high - step;
      break;
    }
    high -= step;
  }
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (await passes(middle)) high = middle;
    else low = middle;
  }
  const block = await client.getBlock({ blockNumber: high, includeTransactions: true });
  const account = entry.account.toLowerCase();
  const taker = block.transactions.find(
    (tx) => tx.from.toLowerCase() === account && BigInt(tx.nonce) === entry.nonce,
  );
  if (!taker) return false;
  return !candidates.some((candidate) => candidate.txHash.toLowerCase() === taker.hash.toLowerCase());
}
