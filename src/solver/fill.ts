import { encodeFunctionData, type Hash, maxUint256, type TransactionReceipt } from 'viem';
import { failpoint } from '../common/failpoints.js';
import { erc20Abi } from '../chains/abi/erc20.js';
import type { ChainInfo } from '../chains/chain.js';
import { failedCallOf, planFill, type TokenAllowance } from './call-execution.js';
import { currencyKey } from '../quotes/domain/pricing/price-source.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import { requestFeatures } from '../requests/domain/request-features.js';
import { actualSponsorship } from '../app-fees/sponsor-payment.js';
import type { SponsorHolds } from '../app-fees/sponsor-holds.js';
import { fillActuals, paidByFill, type UsdPriceOf } from './fill-actuals.js';
import { depositAttested } from './deposit-quorum.js';
import { readRequestFacts, type RequestFacts } from './request-facts.js';
import { type ClaimedJob, jobKey } from './solver-jobs.js';
import type { JournalEntry, PreparedTx, Settlement, TxIntent } from './transaction-journal.js';
import { FillBatches } from './fill-batch.js';
import { isRevert, type JobOutcome, message, type SolverJobDeps } from './solver-job.js';

export type FillDeps = SolverJobDeps & {
  /** Holds a sponsored request's sponsorship on its sponsor's app-fee balance before it is paid. */
  readonly sponsors: SponsorHolds;
};

/**
 * Fills a confirmed deposit on the destination chain, exactly once.
 *
 * 0. A request an app-fee balance sponsors has its sponsorship held on that account first (a gasless permit's was held
 *    when the permit was posted: found open); when the balance no longer covers it, the request fails
 *    (`SPONSORSHIP_NOT_COVERED`) and is refunded: never filled at Ferry's expense.
 * 1. The fill is signed and journaled (held, not sent) under the job's fencing guard.
 * 2. `SubmitFill` is recorded on the request: the aggregate takes it only while the request is `pending` and before
 *    its fill deadline. This is the one place where fill and refund exclude each other: a deadline expiry and a
 *    submitted fill are two appends to one stream, and only one can win.
 * 3. Only then is the journaled transaction broadcast. If the request refused it, the held fill is abandoned (never
 *    sent; its nonce is filled by a zero-value transaction), and nothing is paid.
 * 4. The outcome comes from the journal: mined in a final block → success; reverted, or its nonce used by a
 *    cancellation → failure (and then a refund). A fill still unmined after the deadline is cancelled with its own
 *    nonce; the refund waits until the cancellation, not the fill, has mined.
 *
 * Destination calls never run from the solver's account: a quote with calls is filled through the chain's call
 * executor (`call-execution.ts`), which runs them in a sandbox with exactly the output; calls that fail there are
 * undone, the output goes to the recipient, and the fill is a success recording the failed call (`failedCallData`).
 * A chain without an executor fails such a quote before paying anything (DESTINATION_CALLS_UNSUPPORTED).
 */
export class FillJob {
  private readonly batches: FillBatches;

  constructor(private readonly deps: FillDeps) {
    this.batches = new FillBatches(deps);
  }

  async run(job: ClaimedJob): Promise<JobOutcome> {
    const facts = await readRequestFacts(this.deps.store, job.requestId);
    const destination = this.deps.chains.chain(facts.quote.destinationChainId);
    const sent = await this.send(job, facts, destination);
    return typeof sent === 'string' ? sent : this.await(job, facts, destination, sent);
  }

  /**
   * Steps 1 to 3: the fill journaled, recorded on the request, broadcast (or abandoned), with the other fills waiting
   * on its chain, in nonce order (`FillBatches`). What can be read before (the request, the plan, gas and fees) is
   * read here, outside that order.
   */
  private async send(
    job: ClaimedJob,
    facts: RequestFacts,
    destination: ChainInfo,
  ): Promise<JournalEntry | JobOutcome> {
    const fill = (await this.deps.journal.entriesOf(jobKey(job))).find(
      (entry) => entry.purpose === 'fill' && entry.state !== 'void',
    );
    const submission = { job, requestId: facts.quote.requestId, submittedAt: this.now() };
    if (fill) {
      return fill.state === 'signed' ? this.batches.send(destination, { ...submission, held: fill }) : fill;
    }
    if (facts.status !== 'pending' || !facts.deposit) return 'done';
    // With an oracle quorum, nothing is paid before enough independent signers attested the deposit.
    if (this.deps.oracle && !(await depositAttested(facts, this.deps.oracle))) return 'later';
    const plan = planFill(facts.quote, destination);
    if (plan.kind === 'refuse') {
      await this.fail(facts, plan.reason, plan.details);
      return 'done';
    }
    if (
      plan.allowance &&
      !(await this.deps.journal.inOrder(destination, () => this.allowed(job, destination, plan.allowance!)))
    ) {
      return 'later';
    }
    if (!(await this.deps.sponsors.hold(facts.quote, this.now()))) {
      const sponsor = facts.quote.sponsor!;
      await this.fail(
        facts,
        'SPONSORSHIP_NOT_COVERED',
        `the sponsor ${sponsor.address} no longer holds the ${sponsor.amount} USDC units its quote sponsored`,
      );
      return 'done';
    }
    failpoint('fill:after-sponsor-hold');
    const prepared = await this.prepare(facts, destination, plan.intent);
    return prepared ? this.batches.send(destination, { ...submission, prepared }) : 'done';
  }

  /**
   * Whether the call executor may pull the output from the solver; if not, journals and sends an approval (the
   * executor only ever pulls what the solver's own `fill` names) and answers false until it has mined.
   */
  private async allowed(
    job: ClaimedJob,
    destination: ChainInfo,
    allowance: TokenAllowance,
  ): Promise<boolean> {
    const key = jobKey(job);
    const open = (await this.deps.journal.entriesOf(key)).find(
      (entry) => entry.purpose === 'approve' && (entry.state === 'signed' || entry.state === 'broadcast'),
    );
    if (open) {
      if (open.state === 'signed') await this.deps.journal.release(destination, open);
      await this.deps.journal.settle(destination, open);
      return false;
    }
    const current = await this.deps.clients.of(destination).readContract({
      address: allowance.token,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [this.deps.journal.address, allowance.spender],
    });
    if (current >= allowance.amount) return true;
    const approve = await this.deps.journal.record(
      destination,
      {
        to: allowance.token,
        value: 0n,
        data: encodeFunctionData({
          abi: erc20Abi,
          functionName: 'approve',
          args: [allowance.spender, maxUint256],
        }),
      },
      { purpose: 'approve', jobKey: key },
      this.deps.jobs.guard(job),
    );
    await this.deps.journal.release(destination, approve);
    return false;
  }

  /** The payment's gas and fees; null when it cannot be sent (it would revert: the request fails, nothing is paid). */
  private async prepare(
    facts: RequestFacts,
    destination: ChainInfo,
    intent: TxIntent,
  ): Promise<PreparedTx | null> {
    try {
      return await this.deps.journal.prepare(destination, intent);
    } catch (error) {
      if (!isRevert(error)) throw error;
      await this.fail(facts, 'FILL_REVERTED', message(error), {
        from: this.deps.journal.address,
        to: intent.to,
        data: intent.data,
        value: intent.value.toString(),
      });
      return null;
    }
  }

  /** Waits (renewing the lease) for the fill, or its cancellation, to settle; records the outcome. */
  private async await(
    job: ClaimedJob,
    facts: RequestFacts,
    destination: ChainInfo,
    fill: JournalEntry,
  ): Promise<JobOutcome> {
    const settlement = await this.deps.journal.awaitSettled(destination, fill, {
      maxWaitMs: this.deps.settleWaitMs,
      keepGoing: () => this.deps.jobs.renew(job),
      signal: this.deps.stopping,
      whilePending: async () => {
        if (Date.parse(facts.quote.fillDeadline) <= this.deps.clock.now().getTime()) {
          await this.cancel(destination, fill);
        }
      },
    });
    return settlement.kind === 'pending' ? 'later' : this.record(facts, destination, fill, settlement);
  }

  /** Past the deadline and still unmined: the same nonce, sent again as a zero-value transfer to self. */
  private async cancel(destination: ChainInfo, fill: JournalEntry): Promise<void> {
    const entries = await this.deps.journal.entriesOf(fill.jobKey ?? '');
    if (entries.some((entry) => entry.purpose === 'cancel' && entry.nonce === fill.nonce)) return;
    await this.deps.journal.cancel(destination, fill);
  }

  private async record(
    facts: RequestFacts,
    destination: ChainInfo,
    fill: JournalEntry,
    settlement: Exclude<Settlement, { kind: 'pending' }>,
  ): Promise<JobOutcome> {
    const { quote } = facts;
    if (
      settlement.kind === 'mined' &&
      settlement.entry.id === fill.id &&
      settlement.receipt.status === 'success'
    ) {
      await this.succeed(facts, destination, fill, settlement.receipt);
      return 'done';
    }
    const reverted = settlement.kind === 'mined' && settlement.entry.id === fill.id;
    await this.fail(
      facts,
      reverted ? 'FILL_REVERTED' : 'FILL_CANCELLED',
      reverted
        ? 'the fill transaction reverted'
        : `the fill ${fill.txHash} never mined: its nonce went to ${settlement.kind === 'mined' ? settlement.entry.txHash : 'another transaction'}`,
      { from: fill.account, to: fill.to, data: fill.data, value: fill.value.toString() },
      reverted ? (settlement as { receipt: TransactionReceipt }).receipt : null,
      reverted ? fill.txHash : null,
    );
    void quote;
    return 'done';
  }

  private async succeed(
    { quote, deposit }: RequestFacts,
    destination: ChainInfo,
    fill: JournalEntry,
    receipt: TransactionReceipt,
  ): Promise<void> {
    // The receipt is the fill's (its hash is the hash of the bytes the journal signed and stored), so the value those
    // bytes carry is the value the chain executed: no need to read the transaction back.
    const transaction =
      receipt.transactionHash.toLowerCase() === fill.txHash.toLowerCase()
        ? { from: receipt.from, value: fill.value }
        : await this.deps.clients.of(destination).getTransaction({ hash: fill.txHash as Hash });
    const mined = await this.deps.journal.minedFacts(destination, receipt);
    const actuals = fillActuals({
      quote,
      deposited: BigInt(deposit?.amount ?? quote.currencyIn.amount),
      paid: paidByFill(quote, this.deps.journal.address, transaction, receipt),
      fillGas: BigInt(mined.fee),
      destinationNative: destination.nativeCurrency,
      relayedDepositGas:
        deposit && requestFeatures(quote.features).includes('gasless_execution')
          ? {
              amount: BigInt(deposit.fee),
              currency: this.deps.chains.chain(quote.originChainId).nativeCurrency,
            }
          : null,
      usdPriceOf: await this.pricesAtFill(quote, destination),
    });
    await this.deps.requests.record(quote.requestId, {
      type: 'RecordFillSuccess',
      data: {
        chainId: destination.id,
        txHash: fill.txHash,
        ...mined,
        currencyOut: actuals.currencyOut,
        rate: actuals.rate,
        fees: actuals.fees,
        appFees: actuals.appFees,
        feeSponsorship: actualSponsorship(quote),
        // Calls that failed were undone and the output went to the recipient: a success, with what failed.
        failedCallData: failedCallOf(quote, destination, receipt),
        completedAt: this.now(),
      },
    });
  }

  /**
   * The price source's USD prices of every currency the actuals value, read once at fill time. A source that fails
   * or has no price leaves that currency to the quote's own price (`fillActuals`): a success is recorded either way.
   */
  private async pricesAtFill(quote: RequestQuotedData, destination: ChainInfo): Promise<UsdPriceOf> {
    const currencies = new Map(
      [
        quote.currencyOut.currency,
        quote.feeCurrency,
        quote.appFeeCurrency,
        destination.nativeCurrency,
        this.deps.chains.chain(quote.originChainId).nativeCurrency,
      ].map((currency) => [currencyKey(currency), currency]),
    );
    const prices = new Map<string, string | null>();
    await Promise.all(
      [...currencies].map(async ([key, currency]) => {
        prices.set(
          key,
          this.deps.prices ? await this.deps.prices.usdPrice(currency).catch(() => null) : null,
        );
      }),
    );
    return (currency) => prices.get(currencyKey(currency)) ?? null;
  }

  private async fail(
    { quote }: RequestFacts,
    failReason: string,
    details: string,
    failedCallData: { from: string; to: string; data: string; value: string } | null = null,
    receipt: TransactionReceipt | null = null,
    failedTxHash: string | null = null,
  ): Promise<void> {
    await this.deps.requests.record(quote.requestId, {
      type: 'RecordFillFailure',
      data: {
        failReason,
        failedTxHash,
        failedTxBlockNumber: receipt ? Number(receipt.blockNumber) : null,
        failedCallData,
        details: details.slice(0, 500),
        failedAt: this.now(),
      },
    });
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}
