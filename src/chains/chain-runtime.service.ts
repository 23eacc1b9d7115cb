import { quotePriceSource } from '../quotes/quote-price-source.js';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.js';
import { privateKeyToAccount } from 'viem/accounts';
import { followUntilAborted, sleepUnlessAborted } from '../common/follow-loop.js';
import { HeldPermits } from '../execute/held-permits.js';
import { permitMarginSeconds } from '../execute/permit-deposit.js';
import { oracleGateway } from '../oracle/client/oracle-gateway-factory.js';
import { AttestationService } from '../oracle/attestation.service.js';
import { EvmClients } from '../solver/evm-clients.js';
import { Solver } from '../solver/solver.js';
import { TransactionJournal } from '../solver/transaction-journal.js';
import { wrongChainOf } from './chain-checked-fetch.js';
import { ChainWatcher } from './watcher/chain-watcher.js';

/**
 * Starts what talks to chains in this process, as configured (`chainRuntime`): the chain watcher over every EVM chain
 * with an RPC, and Ferry's own solver when it has a key. Both stop before the application shuts down.
 */
@Injectable()
export class ChainRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Chains');
  readonly watcher: ChainWatcher;
  readonly solver: Solver | null;
  /** The relayer's journal (`POST /execute/permits`), when this process has a relayer key. */
  readonly relayerJournal: TransactionJournal | null;
  /** The relayer's permit deposits left held by a permit that died or failed before releasing them. */
  private readonly heldPermits: HeldPermits | null;
  private readonly pumping = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) db: Database,
    @Inject(EVENT_STORE) store: EventStore,
    commands: CommandBus,
    @Inject(CLOCK) clock: Clock,
    @Optional() mountedOracle?: AttestationService,
  ) {
    const runtime = config.chainRuntime;
    this.watcher = new ChainWatcher(db, ChainWatcher.watchable(config.chains.all()), commands, clock, {
      pollIntervalMs: runtime.pollIntervalMs,
      maxBlockRange: runtime.maxBlockRange,
      onError: (chain, error) =>
        this.warnThrottled(
          `watcher:${chain.id}`,
          `watcher on chain ${chain.id} (RPC from ${chain.rpcUrlVariable ?? 'config'}; a devnet? npm run devnet)`,
          error,
        ),
      onRejected: (chain, deposit, error) =>
        this.logger.warn(
          `chain ${chain.id}: deposit ${deposit.txHash} for ${deposit.requestId} not taken: ${error.code} ${error.message}`,
        ),
      onRejectedTransfer: (chain, transfer, error) =>
        this.logger.warn(
          `chain ${chain.id}: transfer ${transfer.txHash} to deposit address ${transfer.address} not recorded: ${error.code} ${error.message}`,
        ),
    });
    this.solver = runtime.solverPrivateKey
      ? new Solver(db, store, config.chains, commands, clock, {
          privateKey: runtime.solverPrivateKey,
          pollIntervalMs: runtime.pollIntervalMs,
          batchSize: 50,
          leaseMs: runtime.solverLeaseMs,
          onError: (error) => this.warnThrottled('solver', 'solver', error),
          prices: quotePriceSource(config, clock),
          oracle: oracleGateway(config.oracle, mountedOracle ?? null) ?? undefined,
        })
      : null;
    this.relayerJournal = runtime.relayerPrivateKey
      ? new TransactionJournal(db, new EvmClients(), privateKeyToAccount(runtime.relayerPrivateKey))
      : null;
    this.heldPermits =
      this.relayerJournal &&
      new HeldPermits(db, this.relayerJournal, store, commands, clock, {
        marginSeconds: permitMarginSeconds(config.quotes.quoteTtlSeconds),
      });
  }

  private readonly lastWarned = new Map<string, number>();

  /** A failing chain (no devnet running, an RPC down) is reported once a minute, not on every poll. */
  private warnThrottled(key: string, what: string, error: unknown): void {
    const now = Date.now();
    if (now - (this.lastWarned.get(key) ?? 0) < 60_000) return;
    this.lastWarned.set(key, now);
    // viem's first line says only "HTTP request failed." for an RPC refused as serving another chain.
    const shown = wrongChainOf(error) ?? (error as Error);
    this.logger.warn(`${what}: ${shown.message?.split('\n')[0] ?? String(error)} (repeats muted for 60 s)`);
  }

  async onApplicationBootstrap(): Promise<void> {
    const runtime = this.config.chainRuntime;
    if (runtime.watcherRun) this.watcher.start();
    if (runtime.solverRun && this.solver) await this.solver.start();
    const relayer = this.relayerJournal;
    const held = this.heldPermits;
    if (relayer && held && (runtime.watcherRun || runtime.solverRun)) {
      const evm = this.config.chains.all().filter((chain) => chain.vmType === 'evm' && chain.rpcUrl);
      const signal = this.pumping.signal;
      const idle = () => sleepUnlessAborted(runtime.pollIntervalMs * 10, signal);
      this.loops = [
        // Sends again what the relayer released but may not have sent (a crash between the two).
        followUntilAborted(
          signal,
          () => relayer.pump(evm).then(() => false),
          idle,
          (error) => this.warnThrottled('relayer', 'relayer journal', error),
        ),
        // Releases or abandons what a permit journaled and never released (a crash or an error between the two).
        followUntilAborted(
          signal,
          () => held.sweep(evm).then(() => false),
          idle,
          (error) => this.warnThrottled('relayer-held', 'relayer held permits', error),
        ),
      ];
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.pumping.abort();
    await Promise.all(this.loops);
    await this.watcher.stop();
    await this.solver?.stop();
  }
}
