import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { followUntilAborted, sleepUnlessAborted } from '../common/follow-loop.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { AggregateRepository } from '../event-store/aggregate-repository.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { quotePriceSource } from '../quotes/quote-price-source.js';
import { AppFeeAccrual } from './app-fee-accrual.js';
import { AppFeesService, type ClaimView } from './app-fees.service.js';
import { isUndefinedTable } from '../database/undefined-table.js';

/**
 * The app-fee loops of this process (`appFees.run`): accrual from the log, and the resumer that takes up payouts of
 * signed claims whose answer was cut short (a crash, a payout still pending when `POST /execute/permits` answered).
 */
@Injectable()
export class AppFeesWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AppFees');
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  readonly accrual: AppFeeAccrual;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) store: EventStore,
    accounts: AggregateRepository,
    private readonly appFees: AppFeesService,
    @Inject(CLOCK) clock: Clock,
  ) {
    this.accrual = new AppFeeAccrual(
      db,
      store,
      accounts,
      config.chains,
      quotePriceSource(config, clock),
      config.appFees,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    // Fails start-up when the base currency is not configured, rather than at the first balance read.
    void this.appFees.baseCurrency;
    await this.accrual.ensureCheckpoint();
    if (!this.config.appFees.run) return;
    const signal = this.abort.signal;
    const idle = () => sleepUnlessAborted(this.config.appFees.pollIntervalMs, signal);
    const report = (what: string) => (error: unknown) =>
      this.logger.error({ msg: `${what} failed`, err: String(error) });
    this.loops = [
      followUntilAborted(signal, () => this.accrual.step(), idle, report('app-fee accrual batch')),
      followUntilAborted(signal, () => this.resume(), idle, report('app-fee payout resume')),
    ];
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
  }

  /** Signed claims left unsettled for longer than a payout answer waits (`olderThanMs`): drives each once more. */
  async resume(olderThanMs = this.config.appFees.payoutWaitMs + 5_000): Promise<boolean> {
    const rows = await this.db
      .query<{ state: ClaimView }>(
        `SELECT state FROM app_fee_claims WHERE status IN ('authorized', 'submitted')
            AND updated_at < now() - ($1 || ' milliseconds')::interval ORDER BY updated_at LIMIT 20`,
        [String(olderThanMs)],
      )
      .then(
        (result) => result.rows,
        (error: unknown) => {
          // On a fresh database the claims projection creates its table after this loop's first round: no claims yet.
          if (isUndefinedTable(error)) return [];
          throw error;
        },
      );
    // Stopping: the claim in hand stops waiting for its payout's block, the rest wait for the next instance.
    for (const { state } of rows) {
      if (this.abort.signal.aborted) break;
      await this.appFees.pay(state.address, state, this.abort.signal);
    }
    return false;
  }
}
