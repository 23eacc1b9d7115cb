import type { CommandBus } from '@nestjs/cqrs';
import { setMaxListeners } from 'node:events';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { processCheckpointedBatch } from '../../projections/runner/checkpointed-batch.js';
import type { ChainInfo } from '../chains/chain.js';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Clock } from '../common/clock.js';
import { followUntilAborted, followWakeable, sleepUnlessAborted } from '../common/follow-loop.js';
import type { Database } from '../database/database.js';
import { AppendSignal } from '../event-store/catch-up-subscription.js';
import type { EventStore } from '../event-store/event-store.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import type { OracleGateway } from '../oracle/client/oracle-gateway.js';
import { SponsorHolds } from '../app-fees/sponsor-holds.js';
import { SqlSnapshotStore } from '../event-store/aggregate-snapshots.js';
import { abandonGivenUp } from './abandon-given-up.js';
import { AttestJob } from './attest-job.js';
import { DepositAddressJob } from './deposit-address-job.js';
import { EvmClients } from './evm-clients.js';
import { FillJob } from './fill.js';
import { RefundJob, RefundNotSent } from './refund.js';
import { RequestCommands } from './request-commands.js';
import { type ClaimedJob, jobKey, SolverJobs } from './solver-jobs.js';
import { type JournalEntry, LeaseLostError, TransactionJournal } from './transaction-journal.js';
import { UnmatchedReturns } from './unmatched-returns.js';

/** The solver's checkpoint row in `projection_checkpoints`. */
export const SOLVER_CONSUMER = 'solver-jobs';

export interface SolverOptions {
  readonly privateKey: Hex;
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  /** How long a claimed job stays with one worker before another may take it over (renewed while it works). */
  readonly leaseMs: number;
  /** Attempts before a job is left `failed` for an operator (`solver:retry`). */
  readonly maxAttempts?: number;
  readonly onError?: (error: unknown) => void;
  /** USD prices at fill time, for the actuals a success records (`fill-actuals.ts`). */
  readonly prices?: PriceSource;
  /** The oracles: their attestations are recorded on requests, and with a quorum fills wait for them. */
  readonly oracle?: OracleGateway;
}

/**
 * Ferry's own solver: fills confirmed deposits on the destination chain, refunds failed ones and returns deposits no
 * request could take, each exactly once (docs/settlement.md).
 *
 * - Jobs come from the log through a checkpointed consumer (`SolverJobs.queue`), woken by this process's appends
 *   (a confirmed deposit recorded by the watcher here) and else polling every `pollIntervalMs`.
 * - Workers claim them as fenced leases (`SolverJobs`), safe with several instances on one key: up to `batchSize`
 *   at once, a free slot taken as soon as a job ends or new jobs are queued. A wake-up only shortens a wait: a
 *   missed one leaves the work to the next poll.
 * - Every transaction goes through the journal (`TransactionJournal`): nonce reserved in the database, signed,
 *   stored, then broadcast; a crash re-sends the stored transaction.
 * - Fill and refund exclude each other through the request aggregate (`FillJob`, `RefundJob`).
 */
export class Solver {
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private readonly jobs: SolverJobs;
  /** The solver key's journal: app-fee payouts share it when the treasury is the solver key (one nonce order). */
  readonly journal: TransactionJournal;
  private readonly fills: FillJob;
  private readonly refunds: RefundJob;
  private readonly addresses: DepositAddressJob;
  private readonly attestations: AttestJob | null;
  private readonly returns: UnmatchedReturns;
  private readonly requests: RequestCommands;
  /** Wakes the workers: jobs were queued, or a running job ended (a slot is free). */
  private readonly workSignal = new AppendSignal();
  /** The jobs this process is running, by `jobKey` and fence. */
  private readonly running = new Map<string, Promise<void>>();
  /** The EVM chains the journal sends on (an RPC URL configured). */

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly chains: ChainRegistry,
    commands: CommandBus,
    private readonly clock: Clock,
    private readonly options: SolverOptions,
  ) {
    // Every running job waits on this signal while its transaction settles (up to `batchSize` at once, beside the
    // loops): more than Node's default ten listeners is the design, not a leak.
    setMaxListeners(Math.max(100, options.batchSize * 4), this.abort.signal);
    const clients = new EvmClients();
    const settleWaitMs = Math.max(1_000, Math.floor(options.leaseMs / 3));
    this.jobs = new SolverJobs(db, {
      leaseMs: options.leaseMs,
      maxAttempts: options.maxAttempts ?? 12,
      attest: options.oracle !== undefined,
    });
    this.journal = new TransactionJournal(db, clients, privateKeyToAccount(options.privateKey));
    this.requests = new RequestCommands(commands);
    const deps = {
      store,
      chains,
      clients,
      journal: this.journal,
      jobs: this.jobs,
      requests: this.requests,
      clock,
      prices: options.prices,
      oracle: options.oracle,
      stopping: this.abort.signal,
    };
    this.fills = new FillJob({
      ...deps,
      settleWaitMs,
      sponsors: new SponsorHolds(store, { snapshots: new SqlSnapshotStore(db) }),
    });
    this.refunds = new RefundJob({ ...deps, settleWaitMs });
    this.addresses = new DepositAddressJob({ ...deps, settleWaitMs });
    this.attestations = options.oracle
      ? new AttestJob({ store, requests: this.requests, gateway: options.oracle, clock })
      : null;
    this.returns = new UnmatchedReturns(db, chains, this.journal, {
      leaseMs: options.leaseMs,
      batchSize: options.batchSize,
      settleWaitMs,
      clients,
      prices: options.prices,
      stopping: this.abort.signal,
    });
  }

  /** The EVM chains this instance has an RPC for: the ones whose journal it pumps and whose held entries it sweeps. */
  private evmChains(): readonly ChainInfo[] {
    return this.chains.all().filter((chain) => chain.vmType === 'evm' && chain.rpcUrl);
  }

  get address(): Address {
    return this.journal.address;
  }

  async start(): Promise<void> {
    await this.db.query(
      `INSERT INTO projection_checkpoints (name, generation) VALUES ($1, 1) ON CONFLICT (name, generation) DO NOTHING`,
      [SOLVER_CONSUMER],
    );
    const signal = this.abort.signal;
    const idle = () => sleepUnlessAborted(this.options.pollIntervalMs, signal);
    const onError = (error: unknown) => this.options.onError?.(error);
    const evm = this.evmChains();
    this.loops = [
      followWakeable(
        signal,
        () => this.queueJobs(),
        {
          wait: (ms) => this.store.waitForAppend(ms, signal),
          pollIntervalMs: this.options.pollIntervalMs,
          chase: true,
        },
        onError,
      ),
      followWakeable(
        signal,
        () => this.work(),
        { wait: (ms) => this.workSignal.wait(ms, signal), pollIntervalMs: this.options.pollIntervalMs },
        onError,
      ),
      followUntilAborted(signal, () => this.returns.work(onError), idle, onError),
      followUntilAborted(signal, () => this.journal.pump(evm).then(() => false), idle, onError),
      // Held entries of jobs that have ended: the abandon when a job gave up failed, or its process died first.
      followUntilAborted(
        signal,
        () => abandonGivenUp(this.db, this.journal, evm, undefined, this.voided).then(() => false),
        idle,
        onError,
      ),
    ];
  }

  /**
   * Stops claiming and waits for the jobs running here: a job waiting for its sent transaction stops waiting and is
   * given back (its lease released; the journal holds the transaction for whoever takes the job next), so stopping
   * takes one step of each job, not a block of the slowest chain.
   */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    await Promise.all(this.running.values());
    this.loops = [];
  }

  /** One batch of the log: the jobs it calls for. True when it read events. */
  async queueJobs(): Promise<boolean> {
    const result = await processCheckpointedBatch(
      this.db,
      this.store,
      { name: SOLVER_CONSUMER, generation: 1, batchSize: this.options.batchSize },
      (tx, events) => this.jobs.queue(tx, events),
    );
    if (result.processed > 0) this.workSignal.notify();
    return result.processed > 0;
  }

  /**
   * Claims due jobs for the free slots (`batchSize` run at once) and starts them; each frees its slot when it ends.
   * True when it claimed any.
   */
  async work(): Promise<boolean> {
    const free = this.options.batchSize - this.running.size;
    if (free <= 0) return false;
    const claimed = await this.jobs.claim(free);
    for (const job of claimed) {
      // With its fence: a job whose lease ran out here and was claimed again is another run.
      const key = `${jobKey(job)}:${job.fence}`;
      const run = this.run(job)
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.running.delete(key);
          this.workSignal.notify();
        });
      this.running.set(key, run);
    }
    return claimed.length > 0;
  }

  /**
   * A refund voided unsent because its job ended (`abandonGivenUp`) may have been recorded as submitted: the request
   * records it failed, so it does not show a refund in flight for ever.
   */
  private readonly voided = async (entry: JournalEntry): Promise<void> => {
    if (entry.purpose === 'refund' && entry.requestId)
      await this.refundNotSent(entry.requestId, entry.txHash);
  };

  private async refundNotSent(requestId: string, failedTxHash: string | null): Promise<void> {
    await this.requests.record(requestId, {
      type: 'RecordRefundFailure',
      data: { refundFailReason: 'REFUND_NOT_SENT', failedTxHash, failedAt: this.clock.now().toISOString() },
    });
  }

  private jobOf(job: ClaimedJob): { run(job: ClaimedJob): Promise<'done' | 'later'> } {
    if (job.kind === 'fill') return this.fills;
    if (job.kind === 'refund') return this.refunds;
    if (job.kind === 'attest') return this.attestations ?? { run: async () => 'later' };
    return this.addresses;
  }

  private async run(job: ClaimedJob): Promise<void> {
    try {
      const outcome = await this.jobOf(job).run(job);
      if (outcome === 'done') await this.jobs.finish(job, 'done');
      // An attestation queued while an oracle was configured waits for an instance that has one, without taking the
      // place of other jobs every round (never dropped: with a quorum, its fill waits for it).
      else if (job.kind === 'attest' && !this.attestations) await this.jobs.later(job, 60_000);
      else await this.jobs.later(job, this.options.pollIntervalMs);
    } catch (error) {
      if (error instanceof LeaseLostError) return;
      const gaveUp = await this.jobs.failed(job, error);
      // A transaction it journaled and never released would hold back every later nonce of the key on its chain:
      // abandoned now (voided, its nonce filled); the sweep loop does it if this fails or the process dies first.
      if (gaveUp) {
        await abandonGivenUp(this.db, this.journal, this.evmChains(), jobKey(job), this.voided).catch(
          (abandonError: unknown) => this.options.onError?.(abandonError),
        );
      }
      // Told on the first attempt that fails to send, whichever attempt that is (an earlier one may have lost its
      // lease or failed otherwise), and when the job gives up, whatever stopped it: the refund will not be sent
      // until an operator retries it. The request records it once, and each dead refund transaction once.
      if (job.kind === 'refund' && (error instanceof RefundNotSent || gaveUp)) {
        await this.refundNotSent(job.requestId, error instanceof RefundNotSent ? error.failedTxHash : null);
      }
      this.options.onError?.(error);
    }
  }
}
