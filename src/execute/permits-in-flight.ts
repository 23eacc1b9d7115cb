import { type Address, decodeFunctionData, type Hex, isAddressEqual } from 'viem';
import { depositoryAbi } from '../chains/abi/depository.js';
import type { SqlExecutor } from '../database/database.js';

export interface PermitsInFlightParameters {
  readonly chainId: number;
  readonly user: Address;
  readonly token: Address;
  /** The job of the permit being decided, left out of the sum. */
  readonly exceptJobKey: string;
}

/**
 * What the relayer's permits of `user` in `token` on one chain still take from the user's balance: the amounts of
 * those journaled and not yet settled (`signed` or `broadcast`), one per request. A node that simulates at the latest
 * block does not see them, so a permit the balance funds alone may still revert behind them, at the relayer's cost.
 * Run it under the caller's lock on (chain, user, token), before reading the balance: an entry it no longer counts
 * (mined) is already out of that balance, and one it still counts that mined meanwhile is counted twice (a refusal to
 * retry, never a revert).
 *
 * @example const taken = await permitsInFlight(tx, { chainId: 31337, user, token, exceptJobKey: 'permit:0x…' });
 */
export async function permitsInFlight(
  tx: SqlExecutor,
  { chainId, user, token, exceptJobKey }: PermitsInFlightParameters,
): Promise<bigint> {
  const { rows } = await tx.query<{ data: Hex }>(
    `SELECT DISTINCT ON (job_key) data FROM solver_transactions
      WHERE chain_id = $1 AND purpose = 'permit' AND state IN ('signed', 'broadcast') AND job_key <> $2
      ORDER BY job_key, solver_transactions.id`,
    [chainId, exceptJobKey],
  );
  let taken = 0n;
  for (const { data } of rows) {
    const { args } = decodeFunctionData({ abi: depositoryAbi, data });
    const [depositor, currency, amount] = args as readonly [Address, Address, bigint, ...unknown[]];
    if (isAddressEqual(depositor, user) && isAddressEqual(currency, token)) taken += amount;
  }
  return taken;
}
