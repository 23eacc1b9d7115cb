import type { CommandBus } from '@nestjs/cqrs';
import {
  type Account,
  type Address,
  type Chain,
  concatHex,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hash,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { processCheckpointedBatch } from '../../projections/runner/checkpointed-batch.js';
import { erc20Abi } from '../chains/abi/erc20.js';
import type { ChainInfo } from '../chains/chain.js';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Clock } from '../common/clock.js';
import { followUntilAborted, sleepUnlessAborted } from '../common/follow-loop.js';
import type { Database, SqlExecutor } from '../database/database.js';
import type { EventStore, RecordedEvent } from '../event-store/event-store.js';
import { ExecuteRequestCommand } from '../requests/commands/execute-request.command.js';
import { RequestDomainError, type RequestCommand } from '../requests/domain/request-decide.js';
import type { DepositConfirmedData, RequestQuotedData } from '../requests/domain/request-events.js';

/** The solver's checkpoint row in `projection_checkpoints`. */
export const SOLVER_CONSUMER = 'solver-jobs';

const NATIVE = '0x0000000000000000000000000000000000000000';

export interface SolverOptions {
  readonly privateKey: Hex;
  readonly pollIntervalMs: number;
  readonly batchSize: number;
  /** How long a claimed job stays with one worker before another may take it over. */
  readonly leaseMs: number;
  readonly onError?: (error: unknown) => void;
}

interface SolverJob {
  readonly request_id: string;
  readonly kind: 'fill' | 'refund';
  readonly state: 'pending' | 'sent';
  readonly reason: string | null;
  readonly chain_id: string | null;
  readonly tx_hash: string | null;
}

interface RequestFacts {
  readonly quote: RequestQuotedData;
  readonly deposit: DepositConfirmedData | null;
  readonly status: string;
  /** The quote had expired (the sweeper recorded it) before any deposit was seen. */
  readonly expiredBeforeDeposit: boolean;
}

/**
 * Ferry's own solver (development, tests, demos): fills confirmed deposits on the destination chain and refunds
 * failed ones on the origin chain, from its own key.
 *
 * Jobs come from the log through a checkpointed consumer (`DepositConfirmed` → a fill job; `FillFailed`, and
 * `RequestExpired` after a deposit, → a refund job), one row per (request, leg), so each is queued exactly once.
 * Workers claim due jobs with `FOR UPDATE SKIP LOCKED` and a lease. A job records the transaction it sent before
 * waiting for it, so a worker that restarts waits for that transaction instead of paying twice.
 *
 * A fill checks the deposit against the quote first: another currency or less than quoted fails the request
 * (`DEPOSIT_CURRENCY_MISMATCH`, `DEPOSIT_AMOUNT_TOO_LOW`) and refunds what was paid. The payment is a native transfer
 * or an ERC-20 `transfer` with the order id appended to the calldata, then the quote's destination calls, each
 * tagged the same way.
 */
export class Solver {
  private readonly account: Account;
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private readonly publics = new Map<number, PublicClient>();
  private readonly wallets = new Map<number, WalletClient>();
  private readonly sending = new Map<number, Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    private readonly chains: ChainRegistry,
    private readonly commands: CommandBus,
    private readonly clock: Clock,
    private readonly options: SolverOptions,
  ) {
    this.account = privateKeyToAccount(options.privateKey);
  }

  get address(): Address {
    return this.account.address;
  }

  async start(): Promise<void> {
    await this.db.query(
      `INSERT INTO projection_checkpoints (name, generation) VALUES ($1, 1) ON CONFLICT (name, generation) DO NOTHING`,
      [SOLVER_CONSUMER],
    );
    const signal = this.abort.signal;
    const idle = () => sleepUnlessAborted(this.options.pollIntervalMs, signal);
    const onError = (error: unknown) => this.options.onError?.(error);
    this.loops = [
      followUntilAborted(signal, () => this.queueJobs(), idle, onError),
      followUntilAborted(signal, () => this.work(), idle, onError),
      followUntilAborted(signal, () => this.returnUnmatched(), idle, onError),
    ];
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** One batch of the log: the jobs it calls for. True when it read events. */
  async queueJobs(): Promise<boolean> {
    const result = await processCheckpointedBatch(
      this.db,
      this.store,
      { name: SOLVER_CONSUMER, generation: 1, batchSize: this.options.batchSize },
      (tx, events) => this.insertJobs(tx, events),
    );
    return result.processed > 0;
  }

  /** Claims due jobs and runs them. True when there were any. */
  async work(): Promise<boolean> {
    const { rows } = await this.db.query<SolverJob>(
      `WITH due AS (
         SELECT request_id, kind FROM solver_jobs
          WHERE state IN ('pending', 'sent') AND next_attempt_at <= now()
            AND (leased_until IS NULL OR leased_until < now())
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE solver_jobs j SET leased_until = now() + ($2 || ' milliseconds')::interval, attempts = attempts + 1
         FROM due WHERE j.request_id = due.request_id AND j.kind = due.kind
       RETURNING j.request_id, j.kind, j.state, j.reason, j.chain_id::text, j.tx_hash`,
      [this.options.batchSize, String(this.options.leaseMs)],
    );
    await Promise.all(rows.map((job) => this.run(job)));
    return rows.length > 0;
  }

  /**
   * Returns deposits no request could take (`unmatched_deposits`) to their depositor, on their chain, tagged with
   * the id they carried. True when there were any.
   */
  async returnUnmatched(): Promise<boolean> {
    const { rows } = await this.db.query<{
      chain_id: string;
      tx_hash: string;
      log_index: number;
      request_id: string;
      depositor: string;
      currency: string;
      amount: string;
      refund_tx_hash: string | null;
    }>(
      `WITH due AS (
         SELECT chain_id, tx_hash, log_index FROM unmatched_deposits
          WHERE state IN ('pending', 'sent') AND next_attempt_at <= now()
            AND (leased_until IS NULL OR leased_until < now())
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE unmatched_deposits u SET leased_until = now() + ($2 || ' milliseconds')::interval, attempts = attempts + 1
         FROM due WHERE (u.chain_id, u.tx_hash, u.log_index) = (due.chain_id, due.tx_hash, due.log_index)
       RETURNING u.chain_id::text, u.tx_hash, u.log_index, u.request_id, u.depositor, u.currency, u.amount::text,
                 u.refund_tx_hash`,
      [this.options.batchSize, String(this.options.leaseMs)],
    );
    await Promise.all(
      rows.map(async (row) => {
        const key = [row.chain_id, row.tx_hash, row.log_index];
        try {
          const chain = this.chains.chain(Number(row.chain_id));
          let hash = row.refund_tx_hash as Hash | null;
          if (!hash) {
            hash = await this.send(
              chain,
              transferCall(row.currency, row.depositor, BigInt(row.amount), row.request_id as Hex),
            );
            await this.db.query(
              `UPDATE unmatched_deposits SET state = 'sent', refund_tx_hash = $4, updated_at = now()
                WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`,
              [...key, hash],
            );
          }
          const receipt = await this.publicClient(chain).waitForTransactionReceipt({ hash });
          await this.db.query(
            `UPDATE unmatched_deposits SET state = $4, leased_until = NULL, updated_at = now()
              WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`,
            [...key, receipt.status === 'success' ? 'done' : 'failed'],
          );
        } catch (error) {
          await this.db.query(
            `UPDATE unmatched_deposits SET leased_until = NULL, last_error = $4, updated_at = now(),
                    next_attempt_at = now() + least(attempts, 10) * interval '1 second'
              WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3`,
            [...key, String((error as Error).message ?? error).slice(0, 1000)],
          );
          this.options.onError?.(error);
        }
      }),
    );
    return rows.length > 0;
  }

  private async insertJobs(tx: SqlExecutor, events: readonly RecordedEvent[]): Promise<void> {
    const jobs: { requestId: string; kind: 'fill' | 'refund'; reason: string | null }[] = [];
    for (const event of events) {
      if (!event.streamId.startsWith('request-')) continue;
      const requestId = event.streamId.slice('request-'.length);
      if (event.type === 'DepositConfirmed') jobs.push({ requestId, kind: 'fill', reason: null });
      if (event.type === 'FillFailed') jobs.push({ requestId, kind: 'refund', reason: null });
      if (event.type === 'RequestExpired') {
        const reason = (event.data as { reason?: string }).reason ?? '';
        // A quote that simply expired holds no funds; a request that failed by a deadline does.
        if (reason !== '' && reason !== 'QUOTE_EXPIRED') jobs.push({ requestId, kind: 'refund', reason });
      }
    }
    if (jobs.length === 0) return;
    await tx.query(
      `INSERT INTO solver_jobs (request_id, kind, reason)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (request_id, kind) DO NOTHING`,
      [jobs.map((job) => job.requestId), jobs.map((job) => job.kind), jobs.map((job) => job.reason)],
    );
  }

  private async run(job: SolverJob): Promise<void> {
    try {
      const facts = await this.facts(job.request_id);
      const outcome = job.kind === 'fill' ? await this.fill(job, facts) : await this.refund(job, facts);
      await this.finish(job, outcome);
    } catch (error) {
      await this.db.query(
        `UPDATE solver_jobs SET leased_until = NULL, last_error = $3, updated_at = now(),
                next_attempt_at = now() + least(attempts, 10) * interval '1 second'
          WHERE request_id = $1 AND kind = $2`,
        [job.request_id, job.kind, String((error as Error).message ?? error).slice(0, 1000)],
      );
      this.options.onError?.(error);
    }
  }

  private async finish(job: SolverJob, state: 'done' | 'failed'): Promise<void> {
    await this.db.query(
      `UPDATE solver_jobs SET state = $3, leased_until = NULL, updated_at = now() WHERE request_id = $1 AND kind = $2`,
      [job.request_id, job.kind, state],
    );
  }

  /** Fills a confirmed deposit; returns how the job ends. */
  private async fill(job: SolverJob, facts: RequestFacts): Promise<'done' | 'failed'> {
    const { quote, deposit, status } = facts;
    if (status !== 'pending' && !(status === 'submitted' && job.state === 'sent')) return 'done';
    if (!deposit) return 'done';
    const mismatch = depositMismatch(quote, deposit, facts.expiredBeforeDeposit);
    if (mismatch) {
      await this.execute(quote.requestId, {
        type: 'RecordFillFailure',
        data: {
          failReason: mismatch.reason,
          failedTxHash: null,
          failedTxBlockNumber: null,
          failedCallData: null,
          details: mismatch.details,
          failedAt: this.now(),
        },
      });
      return 'done';
    }
    const destination = this.chains.chain(quote.destinationChainId);
    let txHash = job.tx_hash as Hash | null;
    const calls = this.fillCalls(quote);
    if (!txHash) {
      try {
        txHash = await this.send(destination, calls[0]);
      } catch (error) {
        await this.failFill(quote, calls[0], null, null, error);
        return 'done';
      }
      await this.markSent(job, destination.id, txHash);
      await this.execute(quote.requestId, {
        type: 'SubmitFill',
        data: { chainId: destination.id, txHash, submittedAt: this.now() },
      });
    }
    const receipt = await this.publicClient(destination).waitForTransactionReceipt({ hash: txHash });
    if (receipt.status !== 'success') {
      await this.failFill(quote, calls[0], txHash, receipt, null);
      return 'done';
    }
    for (const call of calls.slice(1)) {
      try {
        const hash = await this.send(destination, call);
        const callReceipt = await this.publicClient(destination).waitForTransactionReceipt({ hash });
        if (callReceipt.status !== 'success') {
          await this.failFill(quote, call, hash, callReceipt, null);
          return 'done';
        }
      } catch (error) {
        await this.failFill(quote, call, null, null, error);
        return 'done';
      }
    }
    const block = await this.publicClient(destination).getBlock({ blockNumber: receipt.blockNumber });
    await this.execute(quote.requestId, {
      type: 'RecordFillSuccess',
      data: {
        chainId: destination.id,
        txHash,
        block: Number(receipt.blockNumber),
        timestamp: Number(block.timestamp),
        fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
        currencyOut: quote.currencyOut,
        rate: quote.rate,
        fees: quote.fees,
        appFees: quote.appFees.map((fee) => ({ ...fee, amountUsd: fee.amountFormatted })),
        feeSponsorship: null,
        completedAt: this.now(),
      },
    });
    return 'done';
  }

  /** Refunds what was deposited, on the origin chain, to the quote's refund recipient. */
  private async refund(job: SolverJob, { quote, deposit, status }: RequestFacts): Promise<'done' | 'failed'> {
    if (!deposit || status === 'refund' || status === 'success') return 'done';
    const origin = this.chains.chain(quote.originChainId);
    const recipient = refundRecipient(quote);
    const call = transferCall(deposit.currency, recipient, BigInt(deposit.amount), quote.requestId as Hex);
    let txHash = job.tx_hash as Hash | null;
    if (!txHash) {
      try {
        txHash = await this.send(origin, call);
      } catch (error) {
        await this.execute(quote.requestId, {
          type: 'RecordRefundFailure',
          data: { refundFailReason: 'REFUND_NOT_SENT', failedTxHash: null, failedAt: this.now() },
        });
        this.options.onError?.(error);
        return 'failed';
      }
      await this.markSent(job, origin.id, txHash);
      await this.execute(quote.requestId, {
        type: 'SubmitRefund',
        data: {
          chainId: origin.id,
          txHash,
          amount: deposit.amount,
          currency: deposit.currency,
          recipient,
          reason: job.reason,
          submittedAt: this.now(),
        },
      });
    }
    const receipt = await this.publicClient(origin).waitForTransactionReceipt({ hash: txHash });
    if (receipt.status !== 'success') {
      await this.execute(quote.requestId, {
        type: 'RecordRefundFailure',
        data: { refundFailReason: 'REFUND_REVERTED', failedTxHash: txHash, failedAt: this.now() },
      });
      return 'failed';
    }
    const block = await this.publicClient(origin).getBlock({ blockNumber: receipt.blockNumber });
    await this.execute(quote.requestId, {
      type: 'RecordRefundSuccess',
      data: {
        chainId: origin.id,
        txHash,
        block: Number(receipt.blockNumber),
        timestamp: Number(block.timestamp),
        fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
        amount: deposit.amount,
        currency: deposit.currency,
        recipient,
        refundedAt: this.now(),
      },
    });
    return 'done';
  }

  /** The payment, then each destination call, each tagged with the order id. */
  private fillCalls(quote: RequestQuotedData): FillCall[] {
    const orderData = quote.protocol.orderData as {
      output?: { calls?: readonly { to: string; data: string; value: string }[] };
    };
    const payment = transferCall(
      quote.currencyOut.currency.address,
      quote.recipient,
      BigInt(quote.currencyOut.amount),
      quote.requestId as Hex,
    );
    const calls = (orderData.output?.calls ?? []).map((call) => ({
      to: call.to as Address,
      value: BigInt(call.value),
      data: concatHex([call.data as Hex, quote.requestId as Hex]),
    }));
    return [payment, ...calls];
  }

  private async failFill(
    quote: RequestQuotedData,
    call: FillCall,
    txHash: Hash | null,
    receipt: TransactionReceipt | null,
    error: unknown,
  ): Promise<void> {
    const message = error
      ? String((error as { shortMessage?: string }).shortMessage ?? (error as Error).message)
      : null;
    await this.execute(quote.requestId, {
      type: 'RecordFillFailure',
      data: {
        failReason: 'FILL_REVERTED',
        failedTxHash: txHash,
        failedTxBlockNumber: receipt ? Number(receipt.blockNumber) : null,
        failedCallData: {
          from: this.account.address,
          to: call.to,
          data: call.data,
          value: call.value.toString(),
        },
        details: message ? message.slice(0, 500) : 'the fill transaction reverted',
        failedAt: this.now(),
      },
    });
  }

  private async facts(requestId: string): Promise<RequestFacts> {
    const events = await this.store.readStream(`request-${requestId}`);
    const quoted = events.find((event) => event.type === 'RequestQuoted');
    if (!quoted) throw new Error(`No quote for request ${requestId}`);
    let deposit: DepositConfirmedData | null = null;
    let status = 'waiting';
    let expiredBeforeDeposit = false;
    let depositSeen = false;
    for (const event of events) {
      if (event.type === 'DepositConfirmed') deposit = event.data as DepositConfirmedData;
      if (
        event.type === 'DepositDetected' ||
        event.type === 'DepositConfirmed' ||
        event.type === 'DepositSubmitted'
      ) {
        depositSeen = true;
      }
      if (event.type === 'RequestExpired' && !depositSeen) expiredBeforeDeposit = true;
      status = STATUS_AFTER[event.type]?.(status) ?? status;
    }
    return { quote: quoted.data as RequestQuotedData, deposit, status, expiredBeforeDeposit };
  }

  private async markSent(job: SolverJob, chainId: number, txHash: Hash): Promise<void> {
    await this.db.query(
      `UPDATE solver_jobs SET state = 'sent', chain_id = $3, tx_hash = $4, updated_at = now()
        WHERE request_id = $1 AND kind = $2`,
      [job.request_id, job.kind, chainId, txHash],
    );
  }

  /**
   * Sends from the solver's account, one transaction at a time per chain: concurrent jobs would otherwise read the
   * same pending nonce and collide. Waiting for receipts is not serialised, only the sending.
   */
  private send(chain: ChainInfo, call: FillCall): Promise<Hash> {
    const previous = this.sending.get(chain.id) ?? Promise.resolve();
    const sent = previous.then(() =>
      this.walletClient(chain).sendTransaction({
        account: this.account,
        chain: null,
        to: call.to,
        value: call.value,
        data: call.data,
      }),
    );
    this.sending.set(
      chain.id,
      sent.then(
        () => undefined,
        () => undefined,
      ),
    );
    return sent;
  }

  private async execute(requestId: string, command: RequestCommand): Promise<void> {
    try {
      await this.commands.execute(new ExecuteRequestCommand(requestId, command, { actor: 'solver' }));
    } catch (error) {
      // The request moved on meanwhile (a deadline, another worker): nothing to record.
      if (!(error instanceof RequestDomainError)) throw error;
    }
  }

  private publicClient(chain: ChainInfo): PublicClient {
    let client = this.publics.get(chain.id);
    if (!client) {
      client = createPublicClient({
        chain: viemChain(chain),
        transport: http(rpcOf(chain), { retryCount: 1 }),
        pollingInterval: 100,
        cacheTime: 0,
      }) as PublicClient;
      this.publics.set(chain.id, client);
    }
    return client;
  }

  private walletClient(chain: ChainInfo): WalletClient {
    let client = this.wallets.get(chain.id);
    if (!client) {
      client = createWalletClient({
        account: this.account,
        chain: viemChain(chain),
        transport: http(rpcOf(chain), { retryCount: 1 }),
      });
      this.wallets.set(chain.id, client);
    }
    return client;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

interface FillCall {
  readonly to: Address;
  readonly value: bigint;
  readonly data: Hex;
}

/** A payment of `amount` to `recipient`: native value, or an ERC-20 transfer, with the order id appended. */
function transferCall(currency: string, recipient: string, amount: bigint, orderId: Hex): FillCall {
  if (currency.toLowerCase() === NATIVE) return { to: recipient as Address, value: amount, data: orderId };
  const transfer = encodeFunctionData({
    abi: erc20Abi,
    functionName: 'transfer',
    args: [recipient as Address, amount],
  });
  return { to: currency as Address, value: 0n, data: concatHex([transfer, orderId]) };
}

/** Where a refund goes: the quote's `refundTo`, else the refund recipient in its order, else the user. */
function refundRecipient(quote: RequestQuotedData): string {
  if (quote.refundTo) return quote.refundTo;
  const orderData = quote.protocol.orderData as { inputs?: { refunds?: { recipient: string }[] }[] };
  return orderData.inputs?.[0]?.refunds?.[0]?.recipient ?? quote.user;
}

/** Why a confirmed deposit cannot be filled as quoted, or null. */
function depositMismatch(
  quote: RequestQuotedData,
  deposit: DepositConfirmedData,
  expiredBeforeDeposit: boolean,
): { reason: string; details: string } | null {
  if (expiredBeforeDeposit) {
    return {
      reason: 'DEPOSIT_AFTER_EXPIRY',
      details: `the quote expired at ${quote.quoteExpiresAt}, before the deposit`,
    };
  }
  if (deposit.currency.toLowerCase() !== quote.currencyIn.currency.address.toLowerCase()) {
    return {
      reason: 'DEPOSIT_CURRENCY_MISMATCH',
      details: `deposited ${deposit.currency}, quoted ${quote.currencyIn.currency.address}`,
    };
  }
  if (deposit.timestamp * 1000 > Date.parse(quote.quoteExpiresAt)) {
    return {
      reason: 'DEPOSIT_AFTER_EXPIRY',
      details: `deposited at ${new Date(deposit.timestamp * 1000).toISOString()}, quote expired at ${quote.quoteExpiresAt}`,
    };
  }
  if (BigInt(deposit.amount) < BigInt(quote.currencyIn.amount)) {
    return {
      reason: 'DEPOSIT_AMOUNT_TOO_LOW',
      details: `deposited ${deposit.amount}, quoted ${quote.currencyIn.amount}`,
    };
  }
  return null;
}

/** The status each event leads to, as far as the solver needs to know. */
const STATUS_AFTER: Record<string, (from: string) => string> = {
  DepositSubmitted: () => 'depositing',
  DepositConfirmed: () => 'pending',
  FillSubmitted: () => 'submitted',
  FillSucceeded: () => 'success',
  FillFailed: () => 'failure',
  RefundSucceeded: () => 'refund',
  RefundFailed: () => 'failure',
  RequestExpired: (from) => (from === 'waiting' ? 'waiting' : 'failure'),
};

const rpcOf = (chain: ChainInfo): string => {
  if (!chain.rpcUrl)
    throw new Error(`Chain ${chain.id} has no RPC (${chain.rpcUrlVariable ?? 'not configured'})`);
  return chain.rpcUrl;
};

const viemChain = (chain: ChainInfo): Chain => ({
  id: chain.id,
  name: chain.displayName,
  nativeCurrency: {
    name: chain.nativeCurrency.name,
    symbol: chain.nativeCurrency.symbol,
    decimals: chain.nativeCurrency.decimals,
  },
  rpcUrls: { default: { http: [rpcOf(chain)] } },
});
