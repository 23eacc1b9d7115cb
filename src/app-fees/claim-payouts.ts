import type { Address, Hex } from 'viem';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { ChainInfo } from '../chains/chain.js';
import type { Clock } from '../common/clock.js';
import type { AggregateRepository } from '../event-store/aggregate-repository.js';
import { transferIntent } from '../solver/payments.js';
import { message } from '../solver/solver-job.js';
import {
  isSamePayment,
  type JournalEntry,
  type PreparedTx,
  type TransactionJournal,
} from '../solver/transaction-journal.js';
import { isPaymentDust } from '../solver/dust.js';
import { ClaimBelowGas, type ClaimGasDeps, type ClaimPayoutOf } from './claim-gas.js';
import { type AppFeeAccountCommand, AppFeeDomainError } from './domain/app-fee-account-decide.js';
import { AppFeeAccountAggregate } from './domain/app-fee-account.aggregate.js';
import type { ClaimState } from './domain/app-fee-account-state.js';

const LIVE = ['signed', 'broadcast', 'mined'];

/** Why an attempt sent nothing, and the dead payout it found, if any. */
interface NotSent {
  readonly reason: string;
  readonly txHash: string | null;
  readonly belowGas?: true;
}

/**
 * The claim's journaled payout ended without paying (reverted, dropped, voided): it fails the claim. Named by the
 * first entry, the payout the claim recorded as submitted (the others are its fee-bumped replacements).
 */
const dead = (entries: readonly JournalEntry[]): NotSent => {
  const first = entries[0];
  return { reason: `payout ${first.txHash} did not mine`, txHash: first.txHash };
};

export const claimJobKey = (claimId: string): string => `claim:${claimId.toLowerCase()}`;

/** Where a payout stands after one attempt to drive it. */
export type PayoutOutcome =
  | { readonly status: 'paid'; readonly txHash: string }
  | { readonly status: 'submitted'; readonly txHash: string }
  | {
      readonly status: 'failed';
      readonly txHash: string | null;
      readonly reason: string;
      /** Not sent: worth less than its gas (`CLAIM_BELOW_GAS`). */
      readonly belowGas?: true;
    };

/**
 * Pays authorized claims from the treasury key, each through the transaction journal: recorded (nonce reserved,
 * signed, stored) under a per-claim lock so a claim is never paid twice, then recorded on the account
 * (`AppFeeClaimPayoutSubmitted`), then broadcast. A payout that cannot be sent (gas estimation reverts: the treasury
 * lacks the currency), reverts or is dropped fails the claim, which gives the reservation back to the balance.
 */
export class ClaimPayouts {
  constructor(
    private readonly journal: TransactionJournal,
    private readonly chains: ChainRegistry,
    private readonly accounts: AggregateRepository,
    private readonly clock: Clock,
    /** Weighs payouts against their gas (`CLAIM_BELOW_GAS`); without it every payout is sent. */
    private readonly gas?: ClaimGasDeps,
  ) {}

  get treasury(): Address {
    return this.journal.address;
  }

  /**
   * Whether the payout of a claim opened on these terms is worth its gas (`isPayoutDust`), estimated from the
   * treasury without reading its nonce or fees: opening a claim needs no signature. Throws DustUnknown when it cannot
   * be weighed now.
   */
  async worthItsGas(claim: PayoutTerms): Promise<boolean> {
    if (!this.gas) return true;
    const chain = this.chains.chain(claim.chainId);
    const gas = await this.gas.clients
      .of(chain)
      .estimateGas({ account: this.treasury, ...payoutIntent(claim) })
      .catch(() => null);
    return !(await this.isPayoutDust(chain, claim, gas === null ? null : { gas }));
  }

  /**
   * Whether a claim's payout is worth less than the gas the treasury pays to send it: the claimer asks for it and
   * Ferry pays the gas, so without this anyone with a balance of one unit could have Ferry spend a transfer's gas on
   * it. The rule of refunds (decision 0024, `isPaymentDust`): the payout's estimate as the journal would sign it
   * (`prepared`; a plain transfer's gas when not estimated), at the chain's gas price cut to its fee cap, a token by
   * USD prices. False when no gas deps were given.
   */
  private async isPayoutDust(
    chain: ChainInfo,
    claim: ClaimPayoutOf,
    prepared: Pick<PreparedTx, 'gas'> | null,
  ): Promise<boolean> {
    if (!this.gas) return false;
    return isPaymentDust(this.gas, chain, BigInt(claim.payoutAmount), claim.currency, prepared);
  }

  /**
   * Drives the payout of an authorized (or submitted) claim of `address` as far as it goes within `maxWaitMs`, or
   * until `signal` aborts (the process is stopping: a sent payout stays journaled and `submitted`, and the next
   * instance's resumer settles it).
   */
  async pay(
    address: string,
    claim: ClaimState,
    maxWaitMs: number,
    signal?: AbortSignal,
    again = false,
  ): Promise<PayoutOutcome> {
    const chain = this.chains.chain(claim.chainId);
    const key = claimJobKey(claim.claimId);
    const sent = await this.journal.inOrder(chain, async (): Promise<JournalEntry | NotSent> => {
      const entries = await this.claimEntries(key);
      let entry = entries.find((candidate) => LIVE.includes(candidate.state));
      if (!entry) {
        // An attempt that reverted or was dropped is dead: the claim fails rather than paying a second time.
        if (entries.length > 0) return dead(entries);
        try {
          const prepared = await this.journal.prepare(chain, payoutIntent(claim));
          // Weighed at the gas it would be signed with (gas may have risen since the claim was opened).
          if (await this.isPayoutDust(chain, claim, prepared)) {
            throw new ClaimBelowGas(claim);
          }
          entry = await this.journal.recordPrepared(
            chain,
            prepared,
            { purpose: 'claim', jobKey: key, requestId: claim.claimId },
            async (tx) => {
              await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
              const { rowCount } = await tx.query(
                `SELECT 1 FROM solver_transactions WHERE job_key = $1 AND purpose = 'claim'`,
                [key],
              );
              return rowCount === 0;
            },
          );
        } catch (error) {
          // Another instance may have journaled this claim's payout meanwhile (its entry refused ours, or our chain
          // reads failed while it sent): that payout stands, whatever became of this attempt.
          const now = await this.claimEntries(key);
          entry = now.find((candidate) => LIVE.includes(candidate.state));
          if (!entry) {
            if (now.length > 0) return dead(now);
            if (error instanceof ClaimBelowGas)
              return { reason: error.message, txHash: null, belowGas: true };
            return { reason: `payout not sent: ${message(error)}`, txHash: null };
          }
        }
      }
      if (entry.state === 'signed') {
        try {
          await this.record(address, {
            type: 'SubmitClaimPayout',
            data: { claimId: claim.claimId, txHash: entry.txHash, at: this.now() },
          });
        } catch (error) {
          await this.journal.abandon(chain, entry);
          throw error;
        }
        await this.journal.release(chain, entry);
      }
      return entry;
    });
    if (!('id' in sent)) {
      try {
        const failed = await this.fail(address, claim, sent.reason, sent.txHash);
        return sent.belowGas ? { ...failed, belowGas: true } : failed;
      } catch (error) {
        // Refused: another instance journaled and submitted this claim's payout after this attempt looked (its
        // outcome decides the claim). Drive that payout instead, once.
        if (again || !(error instanceof AppFeeDomainError) || error.code !== 'ILLEGAL_TRANSITION')
          throw error;
        return this.pay(address, claim, maxWaitMs, signal, true);
      }
    }

    const settlement = await this.journal.awaitSettled(chain, sent, { maxWaitMs, signal });
    if (settlement.kind === 'pending') return { status: 'submitted', txHash: sent.txHash };
    if (
      settlement.kind === 'dropped' ||
      !isSamePayment(settlement.entry, sent) ||
      settlement.receipt.status !== 'success'
    ) {
      const what =
        settlement.kind === 'mined' && isSamePayment(settlement.entry, sent) ? 'reverted' : 'was dropped';
      return this.fail(address, claim, `payout ${sent.txHash} ${what}`, sent.txHash);
    }
    await this.record(address, {
      type: 'RecordClaimPaid',
      data: { claimId: claim.claimId, txHash: settlement.entry.txHash, at: this.now() },
    });
    return { status: 'paid', txHash: settlement.entry.txHash };
  }

  /** The claim payouts journaled for `key`, oldest first (at most one: the journal refuses a second). */
  private async claimEntries(key: string): Promise<JournalEntry[]> {
    return (await this.journal.entriesOf(key)).filter((entry) => entry.purpose === 'claim');
  }

  private async fail(
    address: string,
    claim: ClaimState,
    reason: string,
    txHash: string | null,
  ): Promise<Extract<PayoutOutcome, { status: 'failed' }>> {
    await this.record(address, {
      type: 'RecordClaimFailure',
      data: { claimId: claim.claimId, reason: reason.slice(0, 500), txHash, at: this.now() },
    });
    return { status: 'failed', txHash, reason };
  }

  private async record(address: string, command: AppFeeAccountCommand): Promise<void> {
    await this.accounts.execute(
      () => new AppFeeAccountAggregate(address),
      (account) => account.handle(command),
      { metadata: { command: command.type, actor: 'app-fee-payouts' } },
    );
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

/** What a claim's payout is made from: its terms, the recipient and the claim's id (the transfer's order id). */
type PayoutTerms = ClaimPayoutOf & { readonly recipient: string; readonly claimId: string };

/** The treasury's transfer paying a claim. */
const payoutIntent = (claim: PayoutTerms) =>
  transferIntent(claim.currency, claim.recipient, BigInt(claim.payoutAmount), claim.claimId as Hex);
