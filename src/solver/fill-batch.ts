import type { ChainInfo } from '../chains/chain.js';
import { failpoint } from '../common/failpoints.js';
import type { RequestCommands } from './request-commands.js';
import { type ClaimedJob, jobKey, type SolverJobs } from './solver-jobs.js';
import type { JobOutcome } from './solver-job.js';
import {
  type JournalEntry,
  LeaseLostError,
  type PreparedTx,
  type TransactionJournal,
} from './transaction-journal.js';

/** A fill on its way out: a payment to journal (`prepared`), or one journaled and held by an earlier attempt. */
export type FillToSend = {
  readonly job: ClaimedJob;
  readonly requestId: string;
  readonly submittedAt: string;
} & ({ readonly prepared: PreparedTx } | { readonly held: JournalEntry });

interface Waiting {
  readonly fill: FillToSend;
  entry: JournalEntry | null;
  done: boolean;
  readonly resolve: (sent: JournalEntry | JobOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Steps 1 to 3 of a fill (`FillJob`) for every fill waiting on one chain, as one batch in the chain's nonce order
 * (`TransactionJournal.inOrder`): the batch takes what waits when its turn comes, and fills that arrive meanwhile
 * make the next batch. In one batch:
 *
 * 1. the new fills are journaled (held, not sent) in one database transaction, under their jobs' fencing guards
 *    (a fill whose job was taken over gets no nonce and its caller a LeaseLostError);
 * 2. `SubmitFill` is recorded on each request, concurrently (one stream each; the aggregate refuses a request that
 *    ended, as for one fill);
 * 3. in nonce order, the fills their requests took are released (marked broadcast in one write, then sent one after
 *    another), and a refused one is abandoned (never sent, its nonce filled) before any later nonce leaves.
 *
 * A fill whose step fails (its `SubmitFill` could not be written) stays held for its job's next attempt, as it would
 * alone; the others go on.
 */
export class FillBatches {
  private readonly waiting = new Map<number, Waiting[]>();

  constructor(
    private readonly deps: {
      readonly journal: TransactionJournal;
      readonly jobs: SolverJobs;
      readonly requests: RequestCommands;
    },
  ) {}

  /** Sends `fill` with the batch of its chain: the entry once released, or `done` when its request refused it. */
  send(chain: ChainInfo, fill: FillToSend): Promise<JournalEntry | JobOutcome> {
    return new Promise((resolve, reject) => {
      let queue = this.waiting.get(chain.id);
      if (!queue) {
        const batch: Waiting[] = [];
        queue = batch;
        this.waiting.set(chain.id, batch);
        void this.deps.journal.inOrder(chain, () => {
          if (this.waiting.get(chain.id) === batch) this.waiting.delete(chain.id);
          return this.run(chain, batch);
        });
      }
      queue.push({ fill, entry: 'held' in fill ? fill.held : null, done: false, resolve, reject });
    });
  }

  /** One batch; never throws (each fill's caller gets its own outcome or error). */
  private async run(chain: ChainInfo, batch: readonly Waiting[]): Promise<void> {
    try {
      await this.journal(chain, batch);
      const held = batch.filter((item) => !item.done && item.entry !== null);
      const decisions = await Promise.allSettled(
        held.map((item) =>
          this.deps.requests.record(item.fill.requestId, {
            type: 'SubmitFill',
            data: { chainId: chain.id, txHash: item.entry!.txHash, submittedAt: item.fill.submittedAt },
          }),
        ),
      );
      const inNonceOrder = held
        .map((item, index) => ({ item, decision: decisions[index] }))
        .sort((x, y) => (x.item.entry!.nonce < y.item.entry!.nonce ? -1 : 1));
      let taken: Waiting[] = [];
      for (const { item, decision } of inNonceOrder) {
        if (decision.status === 'rejected') settle(item, decision.reason);
        else if (decision.value) taken.push(item);
        else {
          // The request ended first (a deadline, another outcome): this fill must never leave.
          await this.release(chain, taken);
          taken = [];
          await this.deps.journal.abandon(chain, item.entry!).then(
            () => settle(item, null, 'done'),
            (error: unknown) => settle(item, error),
          );
        }
      }
      await this.release(chain, taken);
    } catch (error) {
      for (const item of batch) settle(item, error);
    }
  }

  /** Step 1: the batch's new fills journaled, held, in one transaction under their jobs' fencing guards. */
  private async journal(chain: ChainInfo, batch: readonly Waiting[]): Promise<void> {
    const fresh = batch.filter((item) => 'prepared' in item.fill);
    if (fresh.length === 0) return;
    const entries = await this.deps.journal
      .recordMany(
        chain,
        fresh.map(({ fill }) => ({
          prepared: (fill as { prepared: PreparedTx }).prepared,
          meta: { purpose: 'fill' as const, jobKey: jobKey(fill.job), requestId: fill.requestId },
        })),
        this.deps.jobs.guardAll(fresh.map(({ fill }) => fill.job)),
      )
      .catch((error: unknown) => {
        for (const item of fresh) settle(item, error);
        return [];
      });
    entries.forEach((entry, index) => {
      if (entry instanceof LeaseLostError) settle(fresh[index], entry);
      else fresh[index].entry = entry;
    });
    if (entries.some((entry) => !(entry instanceof LeaseLostError))) failpoint('fill:after-record');
  }

  /** Step 3 for fills their requests took: released together, in nonce order. */
  private async release(chain: ChainInfo, taken: readonly Waiting[]): Promise<void> {
    if (taken.length === 0) return;
    failpoint('fill:after-submit');
    try {
      await this.deps.journal.releaseMany(
        chain,
        taken.map((item) => item.entry!),
      );
    } catch (error) {
      for (const item of taken) settle(item, error);
      return;
    }
    failpoint('fill:after-broadcast');
    for (const item of taken) settle(item, null, item.entry!);
  }
}

/** Gives a fill's caller its outcome (or error), once. */
function settle(item: Waiting, error: unknown, sent?: JournalEntry | JobOutcome): void {
  if (item.done) return;
  item.done = true;
  if (sent === undefined) item.reject(error);
  else item.resolve(sent);
}
