import { type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import { sleepUnlessAborted } from '../common/follow-loop.js';
import type { Database } from '../database/database.js';
import type { EvmClients } from './evm-clients.js';
import type { FeeBumps } from './fee-bumps.js';
import type { JournalSender } from './journal-sender.js';
import { COLUMNS, type JournalRow, toEntry } from './journal-rows.js';
import { takenByStranger } from './nonce-taker.js';
import type { JournalEntry, Settlement } from './transaction-journal.js';

/**
 * How the journal's released transactions end (docs/settlement.md, "Transaction journal", step 3): decided by the
 * chain only, a receipt for one of the nonce's transactions (`mined`, `reverted`; the others `dropped`) or the nonce
 * used by a stranger (`dropped`). Until then the stored bytes are sent again, and a payment that cannot mine at the
 * chain's fees is replaced by a fee-bumped copy of itself (`FeeBumps`).
 */
export class JournalSettlement {
  constructor(
    private readonly db: Database,
    private readonly clients: EvmClients,
    private readonly sender: JournalSender,
    private readonly bumps: FeeBumps,
    private readonly account: { readonly address: string },
  ) {}

  /** What the chain says about `entry` now; re-sends it when it is still open. */
  async settle(chain: ChainInfo, entry: JournalEntry): Promise<Settlement> {
    const client = this.clients.of(chain);
    const candidates = [entry, ...(await this.withNonce(entry)).filter((other) => other.id !== entry.id)];
    const mined = await this.minedAmong(chain, candidates);
    if (mined) return mined;
    const used = BigInt(await client.getTransactionCount({ address: entry.account, blockTag: 'latest' }));
    if (used > entry.nonce) {
      // One of ours may have mined between the receipt reads and the count: look once more before calling the
      // nonce lost to a stranger, at the copies journaled now. A copy is journaled before it is sent, so every one
      // that could have used the nonce is in the journal by now, also a fee-bumped replacement another settle (the
      // pump, another instance) journaled after this one read the copies above (decision 0026).
      const copies = await this.withNonce(entry);
      const late = await this.minedAmong(chain, copies);
      if (late) return late;
      // A receipt not found is not proof: a replica behind the one that counted may answer it (a load-balanced
      // RPC). The block that took the nonce says whose transaction it was; one of ours there is not dropped.
      if (!(await takenByStranger(client, entry, copies))) return { kind: 'pending' };
      await this.db.query(
        `UPDATE solver_transactions SET state = 'dropped', updated_at = now()
          WHERE chain_id = $1 AND account = $2 AND nonce = $3 AND state IN ('signed', 'broadcast')`,
        [chain.id, entry.account, entry.nonce.toString()],
      );
      return { kind: 'dropped' };
    }
    await this.resendDue(chain, entry);
    return { kind: 'pending' };
  }

  /**
   * Polls `settle` every 100 ms until the chain decides `entry`, `whilePending` runs on each pending round (a
   * deadline cancel), and gives up with `pending` after `maxWaitMs`, when `keepGoing` says no (a lease lost) or when
   * `signal` aborts (the process is stopping: the entry is in the journal, whoever takes the job next settles it).
   */
  async awaitSettled(
    chain: ChainInfo,
    entry: JournalEntry,
    options: {
      readonly maxWaitMs: number;
      readonly keepGoing?: () => Promise<boolean>;
      readonly whilePending?: () => Promise<void>;
      readonly signal?: AbortSignal;
    },
  ): Promise<Settlement> {
    const started = Date.now();
    for (;;) {
      const settlement = await this.settle(chain, entry);
      if (settlement.kind !== 'pending') return settlement;
      await options.whilePending?.();
      if (
        options.signal?.aborted ||
        Date.now() - started > options.maxWaitMs ||
        (options.keepGoing && !(await options.keepGoing()))
      ) {
        return settlement;
      }
      await (options.signal
        ? sleepUnlessAborted(100, options.signal)
        : new Promise((resolve) => setTimeout(resolve, 100)));
    }
  }

  /** The block time and fee of a mined transaction, as request events record them. */
  async minedFacts(
    chain: ChainInfo,
    receipt: TransactionReceipt,
  ): Promise<{ readonly block: number; readonly timestamp: number; readonly fee: string }> {
    const block = await this.clients.of(chain).getBlock({ blockNumber: receipt.blockNumber });
    return {
      block: Number(receipt.blockNumber),
      timestamp: Number(block.timestamp),
      fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
    };
  }

  /**
   * Sends again the released transactions with `entry`'s nonce that were last sent over two seconds ago: a node that
   * lost one gets it back, without a broadcast (and a database write) on every poll. When the newest of them cannot
   * mine at the chain's fees, a fee-bumped replacement is journaled and sent as well (`FeeBumps`).
   */
  private async resendDue(chain: ChainInfo, entry: JournalEntry): Promise<void> {
    const { rows } = await this.db.query<JournalRow>(
      `UPDATE solver_transactions SET updated_at = now()
        WHERE chain_id = $1 AND account = $2 AND nonce = $3 AND state = 'broadcast'
          AND updated_at < now() - interval '2 seconds'
        RETURNING ${COLUMNS}`,
      [chain.id, entry.account, entry.nonce.toString()],
    );
    for (const row of rows) await this.sender.send(chain, toEntry(row));
    // After the sends, so their answers (a node refusing the fee now, or taking it) decide.
    if (rows.length > 0) await this.bumps.bumpIfStuck(chain, entry);
  }

  /**
   * The candidate (same nonce) that has a receipt, recorded as mined or reverted, the others as dropped; null when
   * none has one. Only "no such receipt" counts as absent: any other RPC error is thrown, never read as "not mined"
   * (which could later fail a fill that was paid).
   */
  private async minedAmong(
    chain: ChainInfo,
    candidates: readonly JournalEntry[],
  ): Promise<Extract<Settlement, { kind: 'mined' }> | null> {
    const client = this.clients.of(chain);
    for (const candidate of candidates) {
      if (candidate.state === 'void') continue;
      const receipt = await client
        .getTransactionReceipt({ hash: candidate.txHash })
        .catch((error: unknown) => {
          if (error instanceof TransactionReceiptNotFoundError) return null;
          throw error;
        });
      if (!receipt) continue;
      const state = receipt.status === 'success' ? 'mined' : 'reverted';
      await this.db.query(
        `UPDATE solver_transactions SET state = $2, block_number = $3, updated_at = now() WHERE id = $1`,
        [candidate.id, state, receipt.blockNumber.toString()],
      );
      await this.db.query(
        `UPDATE solver_transactions SET state = 'dropped', updated_at = now()
          WHERE chain_id = $1 AND account = $2 AND nonce = $3 AND id <> $4 AND state IN ('signed', 'broadcast')`,
        [chain.id, candidate.account, candidate.nonce.toString(), candidate.id],
      );
      return { kind: 'mined', entry: { ...candidate, state }, receipt };
    }
    return null;
  }

  /**
   * Sends again every released entry of this account that is still open (after a crash, a lost broadcast, a node
   * restart); settles those that are decided. Held (`signed`) entries are left to their job. Each chain of `chains`
   * gets its own hundred oldest nonces, and a chain whose RPC fails is left for the next round after its first error
   * (thrown once the other chains were pumped): nonce fillers and cancellations have no job re-sending them, so one
   * chain that is down, or busy with many open entries, must not stall every other chain behind a lost filler.
   */
  async pump(chains: readonly ChainInfo[]): Promise<void> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM (
         SELECT *, row_number() OVER (PARTITION BY chain_id ORDER BY nonce) AS rank FROM solver_transactions
          WHERE account = $1 AND state = 'broadcast' AND updated_at < now() - interval '2 seconds'
            AND chain_id = ANY($2::bigint[])) open
        WHERE rank <= 100 ORDER BY open.chain_id, open.nonce`,
      [this.account.address, chains.map((chain) => chain.id)],
    );
    let failure: unknown = null;
    const failed = new Set<number>();
    for (const row of rows) {
      const entry = toEntry(row);
      const chain = chains.find((candidate) => candidate.id === entry.chainId);
      if (!chain || failed.has(chain.id)) continue;
      try {
        await this.settle(chain, entry);
      } catch (error) {
        failed.add(chain.id);
        failure ??= error;
      }
    }
    if (failure !== null) throw failure;
  }

  private async withNonce(entry: JournalEntry): Promise<JournalEntry[]> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM solver_transactions WHERE chain_id = $1 AND account = $2 AND nonce = $3
        ORDER BY solver_transactions.id`,
      [entry.chainId, entry.account, entry.nonce.toString()],
    );
    return rows.map(toEntry);
  }
}
