import { type Address, parseTransaction, type PrivateKeyAccount, type PublicClient } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import type { Database, SqlExecutor } from '../database/database.js';
import type { EvmClients } from './evm-clients.js';
import { feeCapOf } from './fee-cap.js';
import type { JournalSender, TxFees } from './journal-sender.js';
import { COLUMNS, insertEntry, type JournalRow, toEntry } from './journal-rows.js';
import type { JournalEntry, TxPurpose } from './transaction-journal.js';

/**
 * What may be replaced by a fee-bumped copy of itself: transactions whose every copy does the same thing (payments to
 * users, the deposit-address factory's calls, nonce fillers, cancellations, approvals). Not fills: a fill that cannot
 * mine is cancelled past its deadline (fill.ts), and that cancellation is bumped. Not the relayer's permit deposits.
 */
const BUMPABLE: ReadonlySet<TxPurpose> = new Set([
  'refund',
  'return',
  'claim',
  'sweep',
  'give-back',
  'gap',
  'cancel',
  'approve',
]);

/** Broadcast errors saying a transaction's fees are too low for the chain now (nodes word it differently). */
const UNDERPRICED =
  /underpriced|too low for the next block|less than (the )?block base ?fee|fee cap less than|max ?fee ?per ?gas.*too low|fee too low/i;

/** `value` raised by at least 12.5 %: nodes refuse a replacement whose fees rose by less (geth: 10 %). */
export const raised = (value: bigint): bigint => (value * 9n + 7n) / 8n;

/**
 * The fees of a replacement for a transaction signed with `old`, when the next block's base fee is `baseFee` and the
 * chain's tip is `tip`: each at least 12.5 % above the old one (the tip at least the chain's), the fee room for the
 * base fee to double, but never above `cap` (a tip the cap leaves no room for is cut to the fee cap). Null when no fee
 * within the cap is both a valid replacement and above the base fee: it waits.
 *
 * @example replacementFees({ maxFeePerGas: 2n, maxPriorityFeePerGas: 1n }, 20n, 1n, 100n) // { 41n, 1n }
 */
export function replacementFees(old: TxFees, baseFee: bigint, tip: bigint, cap: bigint): TxFees | null {
  const wantedTip = max(raised(old.maxPriorityFeePerGas), tip);
  const wanted = max(raised(old.maxFeePerGas), 2n * baseFee + wantedTip);
  const maxFeePerGas = min(wanted, cap);
  if (maxFeePerGas < raised(old.maxFeePerGas) || maxFeePerGas <= baseFee) return null;
  // Never below raised(old tip): the fee cap is at least raised(old fee cap), which is at least that.
  return { maxFeePerGas, maxPriorityFeePerGas: min(wantedTip, maxFeePerGas) };
}

/** How long the newest copy of a nonce may stay unmined before it is replaced, by why it does not mine. */
export interface BumpTiming {
  /** Its fee cap is below the next block's base fee, or the node refused it as underpriced: it cannot mine. */
  readonly afterMs: number;
  /**
   * It could pay the base fee, and is the account's next nonce to mine (so nothing of ours holds it back), yet no
   * block took it: its tip is too low for the chain's block builders.
   */
  readonly tipAfterMs: number;
}

/** The journal's timing (decision 0026): 15 s for a fee cap below the base fee, 60 s (a few blocks) for a low tip. */
export const BUMP_TIMING: BumpTiming = { afterMs: 15_000, tipAfterMs: 60_000 };

interface OpenRow extends JournalRow {
  last_error: string | null;
  age_ms: string;
}

/**
 * Replaces a released transaction that does not mine at the chain's fees (its fee cap below the base fee, or its tip
 * too low) by a copy of itself (same nonce, to, value, data and gas) with higher fees, journaled before it is sent
 * (docs/settlement.md, "Transaction journal"; decision 0026). Both stay open; exactly one can mine, and whichever does
 * is the payment (`isSamePayment`).
 */
export class FeeBumps {
  constructor(
    private readonly db: Database,
    private readonly clients: EvmClients,
    private readonly sender: JournalSender,
    private readonly account: PrivateKeyAccount,
    private readonly timing: BumpTiming,
  ) {}

  /**
   * When the newest open transaction with `entry`'s nonce is stuck (`stuckBecause`), signs its replacement, stores it
   * `broadcast` (naming what it replaces) and sends it; returns it. Null when nothing was replaced: not stuck, not
   * replaceable, another instance replaced it first (the nonce's newest entry is checked again under a lock), or the
   * fees it would need pass the chain's cap (then the stuck entry's `fee_capped` says so, and it waits).
   */
  async bumpIfStuck(chain: ChainInfo, entry: JournalEntry): Promise<JournalEntry | null> {
    const newest = await this.newestOpen(this.db, chain, entry.nonce);
    if (!newest || newest.state !== 'broadcast' || !BUMPABLE.has(newest.purpose)) return null;
    if (Number(newest.age_ms) < Math.min(this.timing.afterMs, this.timing.tipAfterMs)) return null;
    const signed = parseTransaction(newest.raw_tx as `0x${string}`);
    const old = {
      maxFeePerGas: signed.maxFeePerGas ?? signed.gasPrice ?? 0n,
      maxPriorityFeePerGas: signed.maxPriorityFeePerGas ?? signed.gasPrice ?? 0n,
    };
    const client = this.clients.of(chain);
    const [baseFee, tip] = await Promise.all([nextBaseFee(client), client.estimateMaxPriorityFeePerGas()]);
    const stuck = await this.stuckBecause(client, newest, old, baseFee);
    if (!stuck) {
      await this.markCapped(newest.id, null);
      return null;
    }
    const cap = feeCapOf(chain);
    const fees = replacementFees(old, baseFee, tip, cap);
    if (!fees) {
      await this.markCapped(
        newest.id,
        `${stuck}; a replacement of this transaction (signed at ${old.maxFeePerGas}, tip ` +
          `${old.maxPriorityFeePerGas}) would pass chain ${chain.id}'s cap of ${cap} (gas.maxFeePerGasWei): it waits`,
      );
      return null;
    }
    const current = toEntry(newest);
    const rawTx = await this.sender.sign(chain, current, current.nonce, signed.gas!, fees);
    const replacement = await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `journal-nonce:${chain.id}:${current.account.toLowerCase()}:${current.nonce}`,
      ]);
      // Another instance replaced it meanwhile, or the nonce was settled: nothing to do.
      if ((await this.newestOpen(tx, chain, current.nonce))?.id !== current.id) return null;
      const stored = await insertEntry(tx, chain.id, current.account, current.nonce, current, rawTx, {
        purpose: current.purpose,
        jobKey: current.jobKey ?? undefined,
        requestId: current.requestId ?? undefined,
      });
      await tx.query(`UPDATE solver_transactions SET state = 'broadcast', replaces = $2 WHERE id = $1`, [
        stored.id,
        current.id,
      ]);
      await tx.query('UPDATE solver_transactions SET fee_capped = NULL WHERE id = $1', [current.id]);
      return { ...stored, state: 'broadcast' as const };
    });
    if (replacement) await this.sender.send(chain, replacement);
    return replacement;
  }

  /**
   * Why the newest copy of a nonce, signed with `old` and journaled `age_ms` ago, does not mine: its fee cap is below
   * the next block's base fee (or the node refused it as underpriced) for `afterMs`; or it could pay the base fee, is
   * the account's next nonce to mine, and no block took it for `tipAfterMs` (its tip is too low). Null while neither
   * holds: a later nonce waits behind an earlier one whatever its tip, so only the next one is bumped for its tip.
   */
  private async stuckBecause(
    client: PublicClient,
    newest: OpenRow,
    old: TxFees,
    baseFee: bigint,
  ): Promise<string | null> {
    const age = Number(newest.age_ms);
    const cannotPay = old.maxFeePerGas < baseFee || UNDERPRICED.test(newest.last_error ?? '');
    if (cannotPay && age >= this.timing.afterMs) return `the next block's base fee is ${baseFee} wei per gas`;
    if (age < this.timing.tipAfterMs) return null;
    const next = await client.getTransactionCount({ address: this.address, blockTag: 'latest' });
    if (BigInt(next) !== BigInt(newest.nonce)) return null;
    return `the account's next nonce, unmined for over ${this.timing.tipAfterMs / 1000} s at a tip of ${old.maxPriorityFeePerGas} wei per gas`;
  }

  /** The newest open (signed or broadcast) entry of this account with `nonce` on `chain`. */
  private async newestOpen(db: SqlExecutor, chain: ChainInfo, nonce: bigint): Promise<OpenRow | null> {
    const { rows } = await db.query<OpenRow>(
      `SELECT ${COLUMNS}, last_error, (extract(epoch FROM now() - created_at) * 1000)::bigint::text AS age_ms
         FROM solver_transactions
        WHERE chain_id = $1 AND account = $2 AND nonce = $3 AND state IN ('signed', 'broadcast')
        ORDER BY solver_transactions.id DESC LIMIT 1`,
      [chain.id, this.address, nonce.toString()],
    );
    return rows[0] ?? null;
  }

  private async markCapped(id: string, reason: string | null): Promise<void> {
    await this.db.query(
      'UPDATE solver_transactions SET fee_capped = $2 WHERE id = $1 AND fee_capped IS DISTINCT FROM $2',
      [id, reason],
    );
  }

  private get address(): Address {
    return this.account.address;
  }
}

/**
 * The base fee the next block will charge: the pending block's where the node builds one (Hardhat, geth), never
 * below the latest block's.
 */
async function nextBaseFee(client: PublicClient): Promise<bigint> {
  const [latest, pending] = await Promise.all([
    client.getBlock({ blockTag: 'latest' }),
    client.getBlock({ blockTag: 'pending' }).catch(() => null),
  ]);
  return max(latest.baseFeePerGas ?? 0n, pending?.baseFeePerGas ?? 0n);
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
