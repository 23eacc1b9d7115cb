import type { CommandBus } from '@nestjs/cqrs';
import type { ChainInfo } from '../chains/chain.js';
import type { Clock } from '../common/clock.js';
import type { Database } from '../database/database.js';
import type { EventStore } from '../event-store/event-store.js';
import { RequestDomainError } from '../requests/domain/request-decide.js';
import { requestStreamId } from '../requests/domain/request.aggregate.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import { EvmClients } from '../solver/evm-clients.js';
import { permitSecondsLeft, permitValidBefore, submitPermitDeposit } from './permit-deposit.js';
import { COLUMNS, type JournalRow, toEntry } from '../solver/journal-rows.js';
import { isRevert } from '../solver/solver-job.js';
import {
  EntryNotHeldError,
  type JournalEntry,
  type TransactionJournal,
} from '../solver/transaction-journal.js';

/**
 * How long a permit deposit stays held before the sweep takes it up. `POST /execute/permits` records and releases
 * its entry within milliseconds of journaling it; one still held after this was left by a crash or an error.
 */
export const HELD_PERMIT_GRACE_MS = 10_000;

export interface HeldPermitsOptions {
  /** The least validity a permit must have left to be sent (`permitMarginSeconds`). */
  readonly marginSeconds: number;
  /** `HELD_PERMIT_GRACE_MS` unless given. */
  readonly graceMs?: number;
}

/**
 * The relayer's permit deposits left held (`signed`, never released) by a `POST /execute/permits` that died or
 * failed between journaling one and releasing it (decision 0028, "Held permit deposits"). Each holds the relayer's
 * nonce on its chain, and every later relayer transaction there waits behind it. The sweep settles each one still
 * held after `graceMs`: released when its request takes it (its `SubmitDeposit`, recorded again: the request
 * restates one already recorded) and the deposit can still mine in time, else abandoned (voided, its nonce filled).
 */
export class HeldPermits {
  private readonly clients = new EvmClients();

  constructor(
    private readonly db: Database,
    private readonly journal: TransactionJournal,
    private readonly store: EventStore,
    private readonly commands: CommandBus,
    private readonly clock: Clock,
    private readonly options: HeldPermitsOptions,
  ) {}

  /**
   * Settles every permit entry of the relayer on `chains` held longer than `graceMs`, in nonce order, each in the
   * journal's order of its chain. An entry released or abandoned meanwhile (by the permit's own request, another
   * instance) is skipped; other entries are tried when one fails, and the first error is thrown at the end. Returns
   * how many it settled.
   */
  async sweep(chains: readonly ChainInfo[]): Promise<number> {
    const { rows } = await this.db.query<JournalRow>(
      `SELECT ${COLUMNS} FROM solver_transactions
        WHERE account = $1 AND chain_id = ANY($2::bigint[]) AND purpose = 'permit' AND state = 'signed'
          AND created_at < now() - $3::bigint * interval '1 millisecond'
        ORDER BY solver_transactions.chain_id, solver_transactions.nonce`,
      [this.journal.address, chains.map((chain) => chain.id), this.options.graceMs ?? HELD_PERMIT_GRACE_MS],
    );
    let settled = 0;
    let failure: unknown = null;
    for (const entry of rows.map(toEntry)) {
      const chain = chains.find((candidate) => candidate.id === entry.chainId)!;
      try {
        await this.journal.inOrder(chain, () => this.settle(chain, entry));
        settled += 1;
      } catch (error) {
        if (error instanceof EntryNotHeldError) continue;
        failure ??= error;
      }
    }
    if (failure !== null) throw failure;
    return settled;
  }

  /**
   * Releases a held permit deposit its request takes, or abandons it. Only the journal's compare-and-set decides
   * between a release and an abandon racing for the entry (each moves it from `signed` only), and an abandon happens
   * only when no one may send it any more: its permit too close to its expiry to mine in time (the permit path
   * refuses to send it then too), its deposit reverting, or its request refusing it for good (a deposit made
   * directly, the quote's expiry recorded, the request ended: none of these is ever undone).
   */
  async settle(chain: ChainInfo, entry: JournalEntry): Promise<'released' | 'abandoned'> {
    if (await this.taken(chain, entry)) {
      await this.journal.release(chain, entry);
      return 'released';
    }
    await this.journal.abandon(chain, entry);
    return 'abandoned';
  }

  /** Whether `entry` may still be sent, and its request takes it (recorded now when it was not). */
  private async taken(chain: ChainInfo, entry: JournalEntry): Promise<boolean> {
    const requestId = entry.requestId;
    if (!requestId) return false;
    const [quoted] = await this.store.readStream(requestStreamId(requestId), { maxCount: 1 });
    if (quoted?.type !== 'RequestQuoted') return false;
    const validBefore = permitValidBefore((quoted.data as RequestQuotedData).quoteExpiresAt);
    if (permitSecondsLeft(validBefore, this.clock.now()) < this.options.marginSeconds) return false;
    if (!(await this.wouldMine(chain, entry))) return false;
    try {
      await this.commands.execute(submitPermitDeposit(requestId, chain.id, entry.txHash, this.clock.now()));
      return true;
    } catch (error) {
      if (error instanceof RequestDomainError) return false;
      throw error;
    }
  }

  /**
   * Whether the deposit still simulates: the user may have moved the tokens, or the authorization may have been used,
   * since it was journaled; sending it then would only pay the relayer's gas for a revert.
   */
  private async wouldMine(chain: ChainInfo, entry: JournalEntry): Promise<boolean> {
    try {
      await this.clients.of(chain).estimateGas({
        account: entry.account,
        to: entry.to,
        value: entry.value,
        data: entry.data,
      });
      return true;
    } catch (error) {
      if (isRevert(error)) return false;
      throw error;
    }
  }
}
