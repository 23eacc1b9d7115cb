import {
  type Address,
  type Hash,
  type Hex,
  keccak256,
  parseTransaction,
  type PrivateKeyAccount,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import type { Database, SqlExecutor } from '../database/database.js';
import type { EvmClients } from './evm-clients.js';

export type TxPurpose =
  'fill' | 'refund' | 'return' | 'cancel' | 'gap' | 'approve' | 'permit' | 'sweep' | 'give-back' | 'claim';
export type TxState = 'signed' | 'broadcast' | 'mined' | 'reverted' | 'dropped' | 'void';

/** What to send: the solver never sends anything else. */
export interface TxIntent {
  readonly to: Address;
  readonly value: bigint;
  readonly data: Hex;
}

export interface JournalEntry extends TxIntent {
  readonly id: string;
  readonly chainId: number;
  readonly account: Address;
  readonly nonce: bigint;
  readonly purpose: TxPurpose;
  readonly jobKey: string | null;
  readonly requestId: string | null;
  readonly txHash: Hash;
  readonly rawTx: Hex;
  readonly state: TxState;
}

/** How a journaled transaction ended, as far as the chain says now. */
export type Settlement =
  /** `entry` (this transaction, or another of ours with its nonce) is in a final block. */
  | { readonly kind: 'mined'; readonly entry: JournalEntry; readonly receipt: TransactionReceipt }
  /** The nonce went to a transaction that is not ours (replaced from outside) or not known: this one is dead. */
  | { readonly kind: 'dropped' }
  /** Not yet decided: in the mempool, not yet final, or its outcome unknown after a failed broadcast. */
  | { readonly kind: 'pending' };

/** The job that asked for a transaction is no longer held by this worker (its lease was taken over). */
export class LeaseLostError extends Error {
  constructor(what: string) {
    super(`Lease lost: ${what}`);
    this.name = 'LeaseLostError';
  }
}

interface JournalRow {
  id: string;
  chain_id: string;
  account: string;
  nonce: string;
  purpose: TxPurpose;
  job_key: string | null;
  request_id: string | null;
  to_address: string;
  value: string;
  data: string;
  tx_hash: string;
  raw_tx: string;
  state: TxState;
}

const COLUMNS = `id::text, chain_id::text, account, nonce::text, purpose, job_key, request_id, to_address, value::text,
  data, tx_hash, raw_tx, state`;

/** Broadcast errors after which the node may hold the transaction anyway: its outcome is unknown, not failed. */
const MAYBE_SENT =
  /already known|known transaction|already imported|nonce too low|nonce has already been used|replacement transaction underpriced|timed? ?out|timeout|fetch failed|socket|ECONN|network/i;

/**
 * Every transaction Ferry sends, written down before it leaves (docs/settlement.md, "Transaction journal").
 *
 * `record` estimates gas, reserves the account's next nonce under a row lock in `solver_nonces` (several instances
 * with one key never share a nonce), signs locally and stores the raw transaction and its hash, all in one database
 * transaction that first runs the caller's fencing guard. Nothing is sent yet: the entry is `signed` (held).
 * `release` marks it `broadcast` and sends the stored bytes; after a crash `pump` sends the same bytes again, never a
 * newly signed payment. A broadcast error is not a failure: the entry's outcome is unknown until `settle` finds its
 * receipt (inclusion: docs/settlement.md on reorgs of its own transactions), or the nonce used by another transaction (then it is `dropped`; a sibling of ours with
 * the same nonce, such as a cancellation, is recognised by its hash). A held entry that must never go out is
 * `void`ed and its nonce filled by a zero-value transaction to self, so later nonces are not stuck behind a gap.
 */
export class TransactionJournal {
  private readonly queues = new Map<number, Promise<unknown>>();

  constructor(
    private readonly db: Database,
    private readonly clients: EvmClients,
    private readonly account: PrivateKeyAccount,
  ) {}

  get address(): Address {
    return this.account.address;
  }

  /**
   * Runs `work` (record, then whatever must precede the broadcast, then release) alone among this process's work on
   * `chain`, so transactions leave in nonce order: a node may refuse a nonce ahead of a gap (Hardhat under automine
   * does), and a later nonce sent first waits behind the earlier one anyway. Instances sharing a key still each keep
   * their own order; the journal makes that safe, if slower.
   */
  inOrder<T>(chain: ChainInfo, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(chain.id) ?? Promise.resolve();
    const next = previous.then(work, work);
    this.queues.set(
      chain.id,
      next.then(
        () => undefined,
        () => undefined,
      ),
    );
    return next;
  }

  /**
   * Signs and stores `intent` on `chain` with the next nonce; `guard` runs first inside the same database
   * transaction and must return true (the caller still holds its job). Throws what gas estimation throws when the
   * transaction would revert: nothing is stored then.
   */
  async record(
    chain: ChainInfo,
    intent: TxIntent,
    meta: { readonly purpose: TxPurpose; readonly jobKey?: string; readonly requestId?: string },
    guard?: (tx: SqlExecutor) => Promise<boolean>,
  ): Promise<JournalEntry> {
    const client = this.clients.of(chain);
    const from = this.account.address;
    const gas = await client.estimateGas({
      account: from,
      to: intent.to,
      value: intent.value,
      data: intent.data,
    });
    const fees = await this.fees(chain);
    const chainNonce = BigInt(await client.getTransactionCount({ address: from, blockTag: 'pending' }));
    return this.db.transaction(async (tx) => {
      if (guard && !(await guard(tx))) throw new LeaseLostError(`${meta.purpose} ${meta.jobKey ?? ''}`);
      const nonce = await reserveNonce(tx, chain.id, from, chainNonce);
      const rawTx = await this.sign(chain, intent, nonce, (gas * 12n) / 10n, fees);
      return this.insert(tx, chain.id, nonce, intent, rawTx, meta);
    });
  }

  /** Marks a held entry broadcast (durably, first), then sends its stored bytes. */
  async release(chain: ChainInfo, entry: JournalEntry): Promise<void> {
    await this.db.query(
      `UPDATE solver_transactions SET state = 'broadcast', updated_at = now() WHERE id = $1 AND state = 'signed'`,
      [entry.id],
    );
    await this.send(chain, entry);
  }

  /**
   * Abandons a held entry that was never released, and fills its nonce with a zero-value transaction to self (so
   * transactions signed after it are not stuck). Returns the filler, already released.
   */
  async abandon(chain: ChainInfo, entry: JournalEntry): Promise<JournalEntry> {
    const { rowCount } = await this.db.query(
      `UPDATE solver_transactions SET state = 'void', updated_at = now() WHERE id = $1 AND state = 'signed'`,
      [entry.id],
    );
    if (rowCount === 0) throw new Error(`Journal entry ${entry.id} was released; it cannot be abandoned`);
    return this.replace(chain, entry, 'gap');
  }

  /**
   * Cancels a released entry that has not mined: the same nonce, a zero-value transaction to self, fees raised by a
   * quarter so nodes take it as a replacement. Whichever of the two mines settles both.
   */
  async cancel(chain: ChainInfo, entry: JournalEntry): Promise<JournalEntry> {
    return this.replace(chain, entry, 'cancel');
  }

  /** What the chain says about `entry` now; re-sends it when it is still open. */
  async settle(chain: ChainInfo, entry: JournalEntry): Promise<Settlement> {
    const client = this.clients.of(chain);
    const candidates = [entry, ...(await this.withNonce(entry)).filter((other) => other.id !== entry.id)];
    const mined = await this.minedAmong(chain, candidates);
    if (mined) return mined;
    const used = BigInt(await client.getTransactionCount({ address: entry.account, blockTag: 'latest' }));
    if (used > entry.nonce) {
      // One of ours may have mined between the receipt reads and the count: look once more before calling the
      // nonce lost to a stranger.
      const late = await this.minedAmong(chain, candidates);
      if (late) return late;
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
   * deadline cancel), and gives up with `pending` after `maxWaitMs` or when `keepGoing` says no (a lease lost).
   */
  async awaitSettled(
    chain: ChainInfo,
    entry: JournalEntry,
    options: {
      readonly maxWaitMs: number;
      readonly keepGoing?: () => Promise<boolean>;
      readonly whilePending?: () => Promise<void>;
    },
  ): Promise<Settlement> {
    const started = Date.now();
    for (;;) {
      const settlement = await this.settle(chain, entry);
      if (settlement.kind !== 'pending') return settlement;
      await options.whilePending?.();
      if (Date.now() - started > options.maxWaitMs || (options.keepGoing && !(await options.keepGoing()))) {
        return settlement;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
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
   * lost one gets it back, without a broadcast (and a database write) on every poll.
   */
  private async resendDue(chain: ChainInfo, entry: JournalEntry): Promise<void> {
    const { rows } = await this.db.query<JournalRow>(
      `UPDATE solver_transactions SET updated_at = now()
        WHERE chain_id = $1 AND account = $2 AND nonce = $3 AND state = 'broadcast'
          AND updated_at < now() - interval '2 seconds'
        RETURNING ${COLUMNS}`,
      [chain.id, entry.account, entry.nonce.toString()],
    );
    for (const row of rows) await this.send(chain, toEntry(row));
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

  /** The entries a job journaled, oldest first. */
  async entriesOf(jobKey: string): Promise<JournalEntry[]> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM solver_transactions WHERE job_key = $1 ORDER BY id`,
      [jobKey],
    );
    return rows.map(toEntry);
  }

  /**
   * Sends again every released entry of this account that is still open (after a crash, a lost broadcast, a node
   * restart); settles those that are decided. Held (`signed`) entries are left to their job.
   */
  async pump(chains: readonly ChainInfo[]): Promise<void> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM solver_transactions
        WHERE account = $1 AND state = 'broadcast' AND updated_at < now() - interval '2 seconds'
        ORDER BY chain_id, nonce LIMIT 100`,
      [this.account.address],
    );
    for (const row of rows) {
      const entry = toEntry(row);
      const chain = chains.find((candidate) => candidate.id === entry.chainId);
      if (chain) await this.settle(chain, entry);
    }
  }

  private async replace(
    chain: ChainInfo,
    entry: JournalEntry,
    purpose: 'gap' | 'cancel',
  ): Promise<JournalEntry> {
    const original = parseTransaction(entry.rawTx);
    const current = await this.fees(chain);
    const bump = (value: bigint | undefined) => ((value ?? 0n) * 125n) / 100n + 1n;
    const fees = {
      maxFeePerGas: max(bump(original.maxFeePerGas ?? original.gasPrice), current.maxFeePerGas),
      maxPriorityFeePerGas: max(bump(original.maxPriorityFeePerGas), current.maxPriorityFeePerGas),
    };
    const intent = { to: entry.account, value: 0n, data: '0x' as Hex };
    const rawTx = await this.sign(chain, intent, entry.nonce, 21_000n, fees);
    const filler = await this.db.transaction((tx) =>
      this.insert(tx, chain.id, entry.nonce, intent, rawTx, {
        purpose,
        jobKey: entry.jobKey ?? undefined,
        requestId: entry.requestId ?? undefined,
      }),
    );
    await this.release(chain, filler);
    return { ...filler, state: 'broadcast' };
  }

  private async send(chain: ChainInfo, entry: JournalEntry): Promise<void> {
    let error: string | null = null;
    try {
      await this.clients.of(chain).request({ method: 'eth_sendRawTransaction', params: [entry.rawTx] });
    } catch (caught) {
      error = String((caught as { details?: string }).details ?? (caught as Error).message).slice(0, 500);
      if (!MAYBE_SENT.test(error)) error = `rejected: ${error}`;
    }
    await this.db.query(
      `UPDATE solver_transactions SET broadcasts = broadcasts + 1, last_error = $2, updated_at = now() WHERE id = $1`,
      [entry.id, error],
    );
  }

  private async sign(
    chain: ChainInfo,
    intent: TxIntent,
    nonce: bigint,
    gas: bigint,
    fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ): Promise<Hex> {
    return this.account.signTransaction({
      type: 'eip1559',
      chainId: chain.id,
      to: intent.to,
      value: intent.value,
      data: intent.data,
      nonce: Number(nonce),
      gas,
      ...fees,
    });
  }

  private async fees(chain: ChainInfo): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }> {
    const estimate = await this.clients.of(chain).estimateFeesPerGas();
    return { maxFeePerGas: estimate.maxFeePerGas, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas };
  }

  private async insert(
    tx: SqlExecutor,
    chainId: number,
    nonce: bigint,
    intent: TxIntent,
    rawTx: Hex,
    meta: { readonly purpose: TxPurpose; readonly jobKey?: string; readonly requestId?: string },
  ): Promise<JournalEntry> {
    const { rows } = await tx.query<JournalRow>(
      `INSERT INTO solver_transactions
         (chain_id, account, nonce, purpose, job_key, request_id, to_address, value, data, tx_hash, raw_tx)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [
        chainId,
        this.account.address,
        nonce.toString(),
        meta.purpose,
        meta.jobKey ?? null,
        meta.requestId ?? null,
        intent.to,
        intent.value.toString(),
        intent.data,
        keccak256(rawTx),
        rawTx,
      ],
    );
    return toEntry(rows[0]);
  }

  private async withNonce(entry: JournalEntry): Promise<JournalEntry[]> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM solver_transactions WHERE chain_id = $1 AND account = $2 AND nonce = $3 ORDER BY id`,
      [entry.chainId, entry.account, entry.nonce.toString()],
    );
    return rows.map(toEntry);
  }
}

/** The next nonce of (chain, account), never below what the chain has seen; the row stays locked until commit. */
async function reserveNonce(
  tx: SqlExecutor,
  chainId: number,
  account: Address,
  chainNonce: bigint,
): Promise<bigint> {
  await tx.query(
    `INSERT INTO solver_nonces (chain_id, account, next_nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [chainId, account, chainNonce.toString()],
  );
  const { rows } = await tx.query<{ next_nonce: string }>(
    `SELECT next_nonce::text FROM solver_nonces WHERE chain_id = $1 AND account = $2 FOR UPDATE`,
    [chainId, account],
  );
  const nonce = max(BigInt(rows[0].next_nonce), chainNonce);
  await tx.query(`UPDATE solver_nonces SET next_nonce = $3 WHERE chain_id = $1 AND account = $2`, [
    chainId,
    account,
    (nonce + 1n).toString(),
  ]);
  return nonce;
}

function toEntry(row: JournalRow): JournalEntry {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    account: row.account as Address,
    nonce: BigInt(row.nonce),
    purpose: row.purpose,
    jobKey: row.job_key,
    requestId: row.request_id,
    to: row.to_address as Address,
    value: BigInt(row.value),
    data: row.data as Hex,
    txHash: row.tx_hash as Hash,
    rawTx: row.raw_tx as Hex,
    state: row.state,
  };
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
