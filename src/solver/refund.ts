import type { Hex } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import { failpoint } from '../common/failpoints.js';
import type { DepositConfirmedData } from '../requests/domain/request-events.js';
import { DustUnknown, isPaymentDust, preparePayment, revertedGas } from './dust.js';
import { isRevert, type JobOutcome, type SolverJobDeps, storedError } from './solver-job.js';
import { refundRecipient, transferIntent } from './payments.js';
import { readRequestFacts } from './request-facts.js';
import { type ClaimedJob, jobKey } from './solver-jobs.js';
import { isSamePayment, type JournalEntry, type PreparedTx } from './transaction-journal.js';

export type RefundDeps = SolverJobDeps;

/**
 * A refund that cannot be sent now (RPC down, gas estimation failing), or whose transaction is dead
 * (`failedTxHash`: reverted or dropped): retried with backoff by the job queue.
 */
export class RefundNotSent extends Error {
  constructor(
    message: string,
    readonly failedTxHash: string | null = null,
  ) {
    super(message);
  }
}

const notSent = (error: unknown) =>
  new RefundNotSent(`${isRevert(error) ? 'would revert' : 'not sent'}: ${storedError(error)}`);

/**
 * Refunds a failed request's confirmed deposit on the chain and in the currency it was made, to the quote's refund
 * recipient. It runs only once the request is `failure`, which the aggregate allows only when no fill was submitted
 * or the submitted fill is proven dead (reverted, or its nonce used by a cancellation): so a deposit is never both
 * filled and refunded. Each attempt is journaled before it is sent; a refund that reverted is dead and may be tried
 * again, one that is open is waited for, never duplicated.
 *
 * A deposit worth less than the gas its refund would cost (the dust rule of unmatched returns: the refund's own gas
 * estimate, so a `refundTo` contract that burns gas on receipt counts, and never less than a plain transfer's) is not
 * refunded: the request records RefundSkipped (`AMOUNT_TOO_LOW_TO_REFUND`) and the funds stay in the depository. Else
 * anyone could make the solver pay a transfer's gas per 1-wei deposit into a quote, or a gas burner's per deposit
 * worth a little more. The skip is decided before anything is
 * journaled, and the request refuses any refund after it, so a skipped refund is never sent.
 */
export class RefundJob {
  constructor(private readonly deps: RefundDeps) {}

  async run(job: ClaimedJob): Promise<JobOutcome> {
    const { quote, deposit, status, events } = await readRequestFacts(this.deps.store, job.requestId);
    if (!deposit || status === 'refund' || status === 'success') return 'done';
    if (status !== 'failure') return 'later';
    if (events.some((event) => event.type === 'RefundSkipped')) return 'done';
    // Only a first attempt is weighed: a refund once submitted (then reverted or dropped) was worth its gas.
    const submittedBefore = events.some((event) => event.type === 'RefundSubmitted');
    const origin = this.deps.chains.chain(deposit.chainId);
    const recipient = refundRecipient(quote);
    const sent = await this.deps.journal.inOrder(origin, async () => {
      const entries = await this.deps.journal.entriesOf(jobKey(job));
      // Its refunds only: a nonce filler with its key (a held refund abandoned when the job gave up) pays nothing.
      let refund = entries.find(
        (entry) => entry.purpose === 'refund' && ['signed', 'broadcast', 'mined'].includes(entry.state),
      );
      if (!refund) {
        const intent = transferIntent(
          deposit.currency,
          recipient,
          BigInt(deposit.amount),
          quote.requestId as Hex,
        );
        // One that cannot be estimated (it would revert) is still weighed at a plain transfer's gas: dust is skipped,
        // not retried.
        const { prepared, unprepared } = await preparePayment(this.deps.journal, origin, intent);
        if (!submittedBefore && (await this.dust(origin, deposit, prepared))) {
          failpoint('refund:after-dust');
          const skipped = await this.deps.requests.record(quote.requestId, {
            type: 'SkipRefund',
            data: {
              refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
              chainId: origin.id,
              amount: deposit.amount,
              currency: deposit.currency,
              skippedAt: this.now(),
            },
          });
          // Refused: the request moved on meanwhile (another attempt submitted a refund); read it again.
          return skipped ? 'done' : 'later';
        }
        // A refund sent before that reverted is weighed with what its attempts burnt: a refundTo contract that passes
        // the estimate and reverts once sent (armed by a front-running transaction) would else cost a refund's gas per
        // attempt. Past the deposit's worth it is not sent (retried unsent, then given up: REFUND_NOT_SENT).
        const burnt = revertedGas(entries, ['refund']);
        if (burnt > 0n && (await this.dust(origin, deposit, prepared, burnt))) {
          throw new RefundNotSent(
            `not sent: its attempts that reverted burnt up to ${burnt} gas, and another would cost more than the deposit is worth`,
          );
        }
        if (!prepared) throw notSent(unprepared);
        try {
          refund = await this.deps.journal.recordPrepared(
            origin,
            prepared,
            { purpose: 'refund', jobKey: jobKey(job), requestId: quote.requestId },
            this.deps.jobs.guard(job),
          );
        } catch (error) {
          throw notSent(error);
        }
        failpoint('refund:after-record');
      }
      if (refund.state === 'signed') {
        const taken = await this.deps.requests.record(quote.requestId, {
          type: 'SubmitRefund',
          data: {
            chainId: origin.id,
            txHash: refund.txHash,
            amount: deposit.amount,
            currency: deposit.currency,
            recipient,
            reason: job.reason,
            submittedAt: this.now(),
          },
        });
        if (!taken) {
          await this.deps.journal.abandon(origin, refund);
          return 'done';
        }
        await this.deps.journal.release(origin, refund);
        failpoint('refund:after-broadcast');
      }
      return refund;
    });
    if (typeof sent === 'string') return sent;
    const refund = sent;
    return this.await(job, refund, origin.id, deposit.amount, deposit.currency, recipient);
  }

  /**
   * Whether refunding the deposit would cost the solver more gas than it gives back (its estimate, `prepared`, as
   * the journal would sign it; a plain transfer's at least; plus `spentGas`, what its attempts that reverted burnt).
   * One that cannot be weighed now (a token with no USD price, the gas price unreadable) is not refunded now
   * (RefundNotSent: retried), rather than refunded at any cost.
   */
  private async dust(
    origin: ChainInfo,
    deposit: DepositConfirmedData,
    prepared: PreparedTx | null,
    spentGas = 0n,
  ): Promise<boolean> {
    try {
      return await isPaymentDust(this.deps, origin, BigInt(deposit.amount), deposit.currency, prepared, {
        spentGas,
      });
    } catch (error) {
      if (error instanceof DustUnknown) throw new RefundNotSent(`refund of ${error.message}`);
      throw new RefundNotSent(`not weighed against its gas: ${storedError(error)}`);
    }
  }

  private async await(
    job: ClaimedJob,
    refund: JournalEntry,
    chainId: number,
    amount: string,
    currency: string,
    recipient: string,
  ): Promise<JobOutcome> {
    const origin = this.deps.chains.chain(chainId);
    const settlement = await this.deps.journal.awaitSettled(origin, refund, {
      maxWaitMs: this.deps.settleWaitMs,
      keepGoing: () => this.deps.jobs.renew(job),
      signal: this.deps.stopping,
    });
    if (settlement.kind === 'pending') return 'later';
    if (
      settlement.kind === 'dropped' ||
      !isSamePayment(settlement.entry, refund) ||
      settlement.receipt.status !== 'success'
    ) {
      // Reverted or dropped: this attempt is dead, so a new one cannot pay twice. The refund or its fee-bumped
      // replacement mining is the refund, whichever it was.
      throw new RefundNotSent(
        `refund ${refund.txHash} ${settlement.kind === 'mined' ? 'reverted' : 'dropped'}`,
        refund.txHash,
      );
    }
    await this.deps.requests.record(job.requestId, {
      type: 'RecordRefundSuccess',
      data: {
        chainId,
        txHash: settlement.entry.txHash,
        ...(await this.deps.journal.minedFacts(origin, settlement.receipt)),
        amount,
        currency,
        recipient,
        refundedAt: this.now(),
      },
    });
    return 'done';
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}
