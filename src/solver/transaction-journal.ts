import {
  type Address,
  type Hash,
  type Hex,
  parseTransaction,
  type PrivateKeyAccount,
  type TransactionReceipt,
} from 'viem';
import { NextReads } from '../chains/block-reads.js';
import type { ChainInfo } from '../chains/chain.js';
import type { Database, SqlExecutor } from '../database/database.js';
import type { EvmClients } from './evm-clients.js';
import { BUMP_TIMING, FeeBumps } from './fee-bumps.js';
import { feeCapOf, withinCap } from './fee-cap.js';
import { JournalSender, type TxFees } from './journal-sender.js';
import {
  COLUMNS,
  type EntryMeta,
  insertEntries,
  insertEntry,
  type JournalRow,
  reserveNonces,
  toEntry,
} from './journal-rows.js';
import { JournalSettlement } from './journal-settlement.js';
import { gasCapOf, gasLimitOf, PaymentGasTooHigh } from './payment-gas.js';

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

export { gasLimitOf, GIVE_BACK_GAS_CAP, PAYMENT_GAS_CAP, PaymentGasTooHigh } from './payment-gas.js';

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
  readonly fees: TxFees;
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

/** `abandon` found the entry no longer held: it was released (it may mine) or abandoned already. Nothing changed. */
export class EntryNotHeldError extends Error {
  constructor(readonly entryId: string) {
    super(`Journal entry ${entryId} was released; it cannot be abandoned`);
    this.name = 'EntryNotHeldError';
  }
}

export interface JournalOptions {
  /** How long a released transaction may stay unmined while it cannot pay the base fee before it is replaced (15 s). */
  readonly bumpAfterMs?: number;
  /** How long the key's next nonce may stay unmined while it can pay the base fee before its tip is raised (60 s). */
  readonly tipBumpAfterMs?: number;
}

/**
 * Whether `mined` pays what `entry` pays: it is `entry`, or a fee-bumped replacement of it (the same nonce, job,
 * purpose, recipient, value and data). Only one transaction per nonce can mine, so whichever of them did is the
 * payment; a cancellation or a nonce filler (another intent) is not.
 */
export function isSamePayment(mined: JournalEntry, entry: JournalEntry): boolean {
  return (
    mined.id === entry.id ||
    (mined.chainId === entry.chainId &&
      mined.account === entry.account &&
      mined.nonce === entry.nonce &&
      mined.purpose === entry.purpose &&
      mined.jobKey === entry.jobKey &&
      mined.to.toLowerCase() === entry.to.toLowerCase() &&
      mined.value === entry.value &&
      mined.data.toLowerCase() === entry.data.toLowerCase())
  );
}

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
 * `void`ed and its nonce filled by a zero-value transaction to self, so later nonces are not stuck behind a gap. A
 * released payment that cannot mine at the chain's base fee, or whose tip is too low to be mined, is replaced by a
 * fee-bumped copy of itself (`FeeBumps`).
 */
export class TransactionJournal {
  private readonly queues = new Map<number, Promise<unknown>>();
  private readonly pendingCounts = new NextReads<number, number>();
  private readonly sender: JournalSender;
  private readonly settlement: JournalSettlement;

  constructor(
    private readonly db: Database,
    private readonly clients: EvmClients,
    private readonly account: PrivateKeyAccount,
    options: JournalOptions = {},
  ) {
    this.sender = new JournalSender(db, clients, account);
    const bumps = new FeeBumps(db, clients, this.sender, account, {
      afterMs: options.bumpAfterMs ?? BUMP_TIMING.afterMs,
      tipAfterMs: options.tipBumpAfterMs ?? BUMP_TIMING.tipAfterMs,
    });
    this.settlement = new JournalSettlement(db, clients, this.sender, bumps, account);
  }

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
    return this.recordPrepared(chain, await this.prepare(chain, intent), meta, guard);
  }

  /**
   * `record` of a transaction already prepared (`prepare`), for a caller that weighs it first (a payment worth less
   * than the gas its estimate allows is not sent: `isPaymentDust`): the gas weighed is the gas signed.
   */
  async recordPrepared(
    chain: ChainInfo,
    prepared: PreparedTx,
    meta: EntryMeta,
    guard?: (tx: SqlExecutor) => Promise<boolean>,
  ): Promise<JournalEntry> {
    const cap = gasCapOf(meta.purpose);
    if (cap !== null && gasLimitOf(prepared.gas) > cap) {
      throw new PaymentGasTooHigh(meta.purpose, prepared.intent.to, prepared.gas, cap);
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
   * revert), fees and the account's pending nonce, read together. Nothing is stored. The nonce and the fees are read
   * once for every transaction prepared at the same time (`NextRead`: each from a read that started after it asked);
   * the nonce is only a floor under the one reserved in the database.
   */
  async prepare(chain: ChainInfo, intent: TxIntent): Promise<PreparedTx> {
    const client = this.clients.of(chain);
    const from = this.account.address;
    const [gas, fees, chainNonce] = await Promise.all([
      client.estimateGas({ account: from, to: intent.to, value: intent.value, data: intent.data }),
      this.sender.fees(chain),
      this.pendingCounts.get(chain.id, () =>
        client.getTransactionCount({ address: from, blockTag: 'pending' }),
      ),
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
          const gas = gasLimitOf(prepared.gas);
          const rawTx = await this.sender.sign(chain, prepared.intent, nonce, gas, prepared.fees);
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
    for (const entry of released) errors.push(await this.sender.broadcast(chain, entry));
    await this.sender.recordSends(
      released.map((entry) => entry.id),
      errors,
    );
  }

  /**
   * Abandons a held entry that was never released, and fills its nonce with a zero-value transaction to self (so
   * transactions signed after it are not stuck). Returns the filler, already released. The filler is signed first
   * (its fees read), then the entry voided and the filler stored `broadcast` in one database transaction: no RPC
   * error or crash can leave a void entry without its filler, or a filler held where only its job would release it
   * (the pump re-sends it). `guard`, when given, runs first in that transaction and must return true (else
   * LeaseLostError, nothing changed): a job's abandon names the job state it relies on. An entry released (or
   * abandoned) meanwhile is left as it is: EntryNotHeldError.
   */
  async abandon(
    chain: ChainInfo,
    entry: JournalEntry,
    guard?: (tx: SqlExecutor) => Promise<boolean>,
  ): Promise<JournalEntry> {
    return this.replace(chain, entry, 'gap', async (tx) => {
      if (guard && !(await guard(tx)))
        throw new LeaseLostError(`abandon of ${entry.purpose} ${entry.jobKey ?? ''}`);
      const { rowCount } = await tx.query(
        `UPDATE solver_transactions SET state = 'void', updated_at = now() WHERE id = $1 AND state = 'signed'`,
        [entry.id],
      );
      if (rowCount === 0) throw new EntryNotHeldError(entry.id);
    });
  }

  /**
   * Cancels a released entry that has not mined: the same nonce, a zero-value transaction to self, fees raised by a
   * quarter so nodes take it as a replacement, within the chain's cap. Whichever of the two mines settles both.
   */
  async cancel(chain: ChainInfo, entry: JournalEntry): Promise<JournalEntry> {
    return this.replace(chain, entry, 'cancel');
  }

  /** What the chain says about `entry` now; re-sends it (or replaces it, fee-bumped) when it is still open. */
  settle(chain: ChainInfo, entry: JournalEntry): Promise<Settlement> {
    return this.settlement.settle(chain, entry);
  }

  /** `settle` every 100 ms until the chain decides (`JournalSettlement.awaitSettled`). */
  awaitSettled(
    chain: ChainInfo,
    entry: JournalEntry,
    options: Parameters<JournalSettlement['awaitSettled']>[2],
  ): Promise<Settlement> {
    return this.settlement.awaitSettled(chain, entry, options);
  }

  /** Sends again every released entry of this account still open, settles those decided (`JournalSettlement.pump`). */
  pump(chains: readonly ChainInfo[]): Promise<void> {
    return this.settlement.pump(chains);
  }

  /** The block time and fee of a mined transaction, as request events record them. */
  minedFacts(chain: ChainInfo, receipt: TransactionReceipt): ReturnType<JournalSettlement['minedFacts']> {
    return this.settlement.minedFacts(chain, receipt);
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
   * A zero-value transaction to self with `entry`'s nonce, fees raised by a quarter but never past the chain's cap
   * (at the cap it may not replace `entry` in a node's pool: whichever of the two mines settles both, and the filler
   * is bumped like any stuck transaction); stored `broadcast` (in the database transaction that runs `before`), then
   * sent.
   */
  private async replace(
    chain: ChainInfo,
    entry: JournalEntry,
    purpose: 'gap' | 'cancel',
    before?: (tx: SqlExecutor) => Promise<void>,
  ): Promise<JournalEntry> {
    const original = parseTransaction(entry.rawTx);
    const current = await this.sender.fees(chain);
    const bump = (value: bigint | undefined) => ((value ?? 0n) * 125n) / 100n + 1n;
    const fees = withinCap(
      {
        maxFeePerGas: max(bump(original.maxFeePerGas ?? original.gasPrice), current.maxFeePerGas),
        maxPriorityFeePerGas: max(bump(original.maxPriorityFeePerGas), current.maxPriorityFeePerGas),
      },
      feeCapOf(chain),
    );
    const intent = { to: entry.account, value: 0n, data: '0x' as Hex };
    const rawTx = await this.sender.sign(chain, intent, entry.nonce, 21_000n, fees);
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
    await this.sender.send(chain, filler);
    return filler;
  }
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
