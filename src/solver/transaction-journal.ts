import {
  type Address,
  type Hash,
  type Hex,
  parseTransaction,
  type PrivateKeyAccount,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import { sleepUnlessAborted } from '../common/follow-loop.js';
import type { Database, SqlExecutor } from '../database/database.js';
import type { EvmClients } from './evm-clients.js';
import {
  COLUMNS,
  type EntryMeta,
  insertEntries,
  insertEntry,
  type JournalRow,
  reserveNonces,
  toEntry,
} from './journal-rows.js';

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

/**
 * Payments to an address a user chose (a refund's `refundTo` or depositor, an unmatched deposit's depositor, a claim's
 * recipient) are plain transfers: a few tens of thousands of gas, whatever the recipient. One whose estimate needs more
 * than this is refused before it is signed: a recipient contract that burns gas on receipt would otherwise make the
 * solver pay up to a block's gas for each of them (a refund costs its user nothing).
 */
export const PAYMENT_GAS_CAP = 150_000n;
const CAPPED_PAYMENTS: ReadonlySet<TxPurpose> = new Set(['refund', 'return', 'claim']);

/** A payment to a user's address needs more gas than `PAYMENT_GAS_CAP`: nothing was signed or stored. */
export class PaymentGasTooHigh extends Error {
  constructor(
    readonly purpose: TxPurpose,
    readonly to: string,
    readonly gas: bigint,
  ) {
    super(
      `the ${purpose} to ${to} needs ${gas} gas, more than the ${PAYMENT_GAS_CAP} a payment to a user's address may use`,
    );
    this.name = 'PaymentGasTooHigh';
  }
}

/** How a journaled transaction ended, as far as the chain says now. */
export type Settlement =
  /** `entry` (this transaction, or another of ours with its nonce) is in a final block. */
  | { readonly kind: 'mined'; readonly entry: JournalEntry; readonly receipt: TransactionReceipt }
  /** The nonce went to a transaction that is not ours (replaced from outside) or not known: this one is dead. */
  | { readonly kind: 'dropped' }
  /** Not yet decided: in the mempool, not yet final, or its outcome unknown after a failed broadcast. */
  | { readonly kind: 'pending' };

/** What `record` reads from the chain before it takes a nonce (`prepare`): the gas, fees and pending nonce. */
export interface PreparedTx {
  readonly intent: TxIntent;
  readonly gas: bigint;
  readonly fees: { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint };
  /** The account's pending transaction count when read: the lowest nonce the next entry may take. */
  readonly chainNonce: bigint;
}

/** One entry of `recordMany`: what to send and why. */
export interface RecordItem {
  readonly prepared: PreparedTx;
  readonly meta: EntryMeta;
}

/** The job that asked for a transaction is no longer held by this worker (its lease was taken over). */
export class LeaseLostError extends Error {
  constructor(what: string) {
    super(`Lease lost: ${what}`);
    this.name = 'LeaseLostError';
  }
}

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
    meta: EntryMeta,
    guard?: (tx: SqlExecutor) => Promise<boolean>,
  ): Promise<JournalEntry> {
    const prepared = await this.prepare(chain, intent);
    if (CAPPED_PAYMENTS.has(meta.purpose) && (prepared.gas * 12n) / 10n > PAYMENT_GAS_CAP) {
      throw new PaymentGasTooHigh(meta.purpose, intent.to, prepared.gas);
    }
    const [entry] = await this.recordMany(
      chain,
      [{ prepared, meta }],
      guard && (async (tx) => [await guard(tx)]),
    );
    if (entry instanceof LeaseLostError) throw entry;
    return entry;
  }

  /**
   * The chain reads `record` needs before it takes a nonce: gas (estimated: throws when the transaction would
   * revert), fees and the account's pending nonce, read together. Nothing is stored.
   */
  async prepare(chain: ChainInfo, intent: TxIntent): Promise<PreparedTx> {
    const client = this.clients.of(chain);
    const from = this.account.address;
    const [gas, fees, chainNonce] = await Promise.all([
      client.estimateGas({ account: from, to: intent.to, value: intent.value, data: intent.data }),
      this.fees(chain),
      client.getTransactionCount({ address: from, blockTag: 'pending' }),
    ]);
    return { intent, gas, fees, chainNonce: BigInt(chainNonce) };
  }

  /**
   * `record` for several prepared transactions on one chain, in one database transaction: `guard` runs first and
   * says which items their callers still hold (an item it refuses gets a LeaseLostError in its place, and no nonce),
   * then consecutive nonces are reserved for the others, in the order given, and each is signed and stored held.
   */
  async recordMany(
    chain: ChainInfo,
    items: readonly RecordItem[],
    guard?: (tx: SqlExecutor) => Promise<readonly boolean[]>,
  ): Promise<(JournalEntry | LeaseLostError)[]> {
    const from = this.account.address;
    return this.db.transaction(async (tx) => {
      const held = guard ? await guard(tx) : items.map(() => true);
      const kept = items.filter((_, index) => held[index]);
      const floor = items.reduce((low, item) => max(low, item.prepared.chainNonce), 0n);
      const first = kept.length > 0 ? await reserveNonces(tx, chain.id, from, floor, kept.length) : 0n;
      const signed = await Promise.all(
        kept.map(async ({ prepared, meta }, index) => {
          const nonce = first + BigInt(index);
          const gas = (prepared.gas * 12n) / 10n;
          const rawTx = await this.sign(chain, prepared.intent, nonce, gas, prepared.fees);
          return { nonce, intent: prepared.intent, rawTx, meta };
        }),
      );
      const stored = (await insertEntries(tx, chain.id, from, signed)).values();
      return items.map((item, index) =>
        held[index]
          ? stored.next().value!
          : new LeaseLostError(`${item.meta.purpose} ${item.meta.jobKey ?? ''}`),
      );
    });
  }

  /** Marks a held entry broadcast (durably, first), then sends its stored bytes. */
  async release(chain: ChainInfo, entry: JournalEntry): Promise<void> {
    await this.releaseMany(chain, [entry]);
  }

  /**
   * `release` for several held entries of one chain: all marked broadcast (durably, first) in one write, then their
   * stored bytes sent one after another in the order given (nonce order), then the sends' outcomes written at once.
   * Only the entries this write moved from `signed` are sent: one another instance abandoned meanwhile (`void`, its
   * nonce being filled) or released already is not, since a void entry that mined would be a payment the journal
   * says never happened.
   */
  async releaseMany(chain: ChainInfo, entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const { rows } = await this.db.query<{ id: bigint }>(
      `UPDATE solver_transactions SET state = 'broadcast', updated_at = now()
        WHERE id = ANY($1::bigint[]) AND state = 'signed' RETURNING id`,
      [entries.map((entry) => entry.id)],
    );
    const moved = new Set(rows.map((row) => String(row.id)));
    const released = entries.filter((entry) => moved.has(String(entry.id)));
    if (released.length === 0) return;
    const errors: (string | null)[] = [];
    for (const entry of released) errors.push(await this.broadcast(chain, entry));
    await this.recordSends(
      released.map((entry) => entry.id),
      errors,
    );
  }

  /**
   * Abandons a held entry that was never released, and fills its nonce with a zero-value transaction to self (so
   * transactions signed after it are not stuck). Returns the filler, already released. The filler is signed first
   * (its fees read), then the entry voided and the filler stored `broadcast` in one database transaction: no RPC
   * error or crash can leave a void entry without its filler, or a filler held where only its job would release it
   * (the pump re-sends it).
   */
  async abandon(chain: ChainInfo, entry: JournalEntry): Promise<JournalEntry> {
    return this.replace(chain, entry, 'gap', async (tx) => {
      const { rowCount } = await tx.query(
        `UPDATE solver_transactions SET state = 'void', updated_at = now() WHERE id = $1 AND state = 'signed'`,
        [entry.id],
      );
      if (rowCount === 0) throw new Error(`Journal entry ${entry.id} was released; it cannot be abandoned`);
    });
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
      // A receipt not found is not proof: a replica behind the one that counted may answer it (a load-balanced
      // RPC). The block that took the nonce says whose transaction it was; one of ours there is not dropped.
      if (!(await this.takenByStranger(chain, entry, candidates))) return { kind: 'pending' };
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

  /**
   * Whether the transaction that used `entry`'s nonce on chain is none of `candidates` (ours with that nonce): the
   * first block whose count of the account passes the nonce is found (searched back from the head, doubling, then
   * halved), and its transaction from the account with that nonce read. False when the node's answers do not agree
   * (a replica behind): not decided yet. Runs only when no candidate has a receipt while the nonce is used.
   */
  private async takenByStranger(
    chain: ChainInfo,
    entry: JournalEntry,
    candidates: readonly JournalEntry[],
  ): Promise<boolean> {
    const client = this.clients.of(chain);
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

  /** The entries a job journaled, oldest first. */
  async entriesOf(jobKey: string): Promise<JournalEntry[]> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM solver_transactions WHERE job_key = $1 ORDER BY solver_transactions.id`,
      [jobKey],
    );
    return rows.map(toEntry);
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

  /**
   * A zero-value transaction to self with `entry`'s nonce, fees raised by a quarter; stored `broadcast` (in the
   * database transaction that runs `before`), then sent.
   */
  private async replace(
    chain: ChainInfo,
    entry: JournalEntry,
    purpose: 'gap' | 'cancel',
    before?: (tx: SqlExecutor) => Promise<void>,
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
    const filler: JournalEntry = await this.db.transaction(async (tx) => {
      await before?.(tx);
      const stored = await insertEntry(tx, chain.id, this.account.address, entry.nonce, intent, rawTx, {
        purpose,
        jobKey: entry.jobKey ?? undefined,
        requestId: entry.requestId ?? undefined,
      });
      await tx.query(`UPDATE solver_transactions SET state = 'broadcast' WHERE id = $1`, [stored.id]);
      return { ...stored, state: 'broadcast' };
    });
    await this.send(chain, filler);
    return filler;
  }

  private async send(chain: ChainInfo, entry: JournalEntry): Promise<void> {
    await this.recordSends([entry.id], [await this.broadcast(chain, entry)]);
  }

  /** Sends the stored bytes; the error as recorded (`rejected: …` unless the node may hold it anyway), or null. */
  private async broadcast(chain: ChainInfo, entry: JournalEntry): Promise<string | null> {
    try {
      await this.clients.of(chain).request({ method: 'eth_sendRawTransaction', params: [entry.rawTx] });
      return null;
    } catch (caught) {
      const error = String((caught as { details?: string }).details ?? (caught as Error).message).slice(
        0,
        500,
      );
      return MAYBE_SENT.test(error) ? error : `rejected: ${error}`;
    }
  }

  private async recordSends(ids: readonly string[], errors: readonly (string | null)[]): Promise<void> {
    await this.db.query(
      `UPDATE solver_transactions t SET broadcasts = t.broadcasts + 1, last_error = s.error, updated_at = now()
         FROM unnest($1::bigint[], $2::text[]) AS s(id, error) WHERE t.id = s.id`,
      [ids, errors],
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

  private async withNonce(entry: JournalEntry): Promise<JournalEntry[]> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM solver_transactions WHERE chain_id = $1 AND account = $2 AND nonce = $3
        ORDER BY solver_transactions.id`,
      [entry.chainId, entry.account, entry.nonce.toString()],
    );
    return rows.map(toEntry);
  }
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
