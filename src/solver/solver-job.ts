import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Clock } from '../common/clock.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import type { EventStore } from '../event-store/event-store.js';
import type { OracleGateway } from '../oracle/client/oracle-gateway.js';
import type { EvmClients } from './evm-clients.js';
import type { RequestCommands } from './request-commands.js';
import type { SolverJobs } from './solver-jobs.js';
import type { TransactionJournal } from './transaction-journal.js';

/** How one run of a job ends: finished, or given back to be taken again soon (a transaction still pending). */
export type JobOutcome = 'done' | 'later';

/** What the fill and refund jobs work with. */
export interface SolverJobDeps {
  readonly store: EventStore;
  readonly chains: ChainRegistry;
  readonly clients: EvmClients;
  readonly journal: TransactionJournal;
  readonly jobs: SolverJobs;
  readonly requests: RequestCommands;
  readonly clock: Clock;
  /** USD prices at fill time, for the request's actuals; none → the quote's own prices. */
  readonly prices?: PriceSource;
  /** The oracles, when Ferry asks them: with a quorum, fills wait for the deposit's attestation. */
  readonly oracle?: OracleGateway;
  /** How long one claim waits for a sent transaction to settle before giving the job back. */
  readonly settleWaitMs: number;
  /** Aborts when the solver stops: a job stops waiting for its sent transaction and is given back at once. */
  readonly stopping?: AbortSignal;
}

/** Gas estimation said the transaction reverts (as opposed to an RPC that failed). */
export function isRevert(error: unknown): boolean {
  const details = String((error as { details?: string }).details ?? '');
  return /revert|insufficient funds|exceeds balance/i.test(`${message(error)} ${details}`);
}

/** The most readable message of an error (viem's short message when there is one). */
export function message(error: unknown): string {
  return String((error as { shortMessage?: string }).shortMessage ?? (error as Error).message ?? error);
}

/**
 * An error as the solver stores it for operators (`solver_jobs.last_error`, `unmatched_deposits`): viem's short
 * message and the node's own words (`details`), never the rest of viem's message, which repeats the URL it called
 * (a provider's key can sit in it) and the request body. Other errors as they are.
 */
export function storedError(error: unknown): string {
  const { shortMessage, details } = (error ?? {}) as { shortMessage?: unknown; details?: unknown };
  if (typeof shortMessage !== 'string') return String((error as Error | undefined)?.message ?? error);
  return typeof details === 'string' && details !== '' && !shortMessage.includes(details)
    ? `${shortMessage} (${details})`
    : shortMessage;
}
