import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../../common/clock.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';
import { DATABASE, type Database } from '../../database/database.js';
import { ExecuteRequestCommand } from '../commands/execute-request.command.js';
import { RequestDomainError } from '../domain/request-decide.js';

export interface SweepResult {
  readonly due: number;
  readonly expired: number;
}

/**
 * Moves requests past a deadline on, so none waits for ever: it reads the due rows of the `request_deadlines` read
 * model and sends each request `ExpireRequest` at the current time. The aggregate decides the reason (a quote that
 * was never deposited expires silently; funds in flight fail and are refunded). Several instances may sweep: a
 * request expired twice records it once.
 */
@Injectable()
export class DeadlineSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DeadlineSweeper');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepResult> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly commands: CommandBus,
  ) {}

  onApplicationBootstrap(): void {
    const interval = this.config.requests.sweepIntervalMs;
    if (interval === 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.sweep()
        .catch((error: unknown) => {
          this.logger.error({ msg: 'sweep failed', err: String(error) });
          return { due: 0, expired: 0 };
        })
        .finally(() => {
          this.running = null;
        });
    }, interval);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass: every request whose deadline has passed (up to `batchSize`) is asked to expire. */
  async sweep(batchSize = 500): Promise<SweepResult> {
    const at = this.clock.now();
    const { rows } = await this.db.query<{ id: string }>(
      'SELECT id FROM request_deadlines WHERE due_at <= $1 ORDER BY due_at LIMIT $2',
      [at.toISOString(), batchSize],
    );
    let expired = 0;
    for (const { id } of rows) {
      try {
        const result = await this.commands.execute(
          new ExecuteRequestCommand(
            id,
            { type: 'ExpireRequest', data: { at: at.toISOString() } },
            { actor: 'deadline-sweeper' },
          ),
        );
        expired += result.appended;
      } catch (error) {
        // The read model may lag the stream: the request already moved on, which is what we wanted.
        if (!(error instanceof RequestDomainError)) throw error;
      }
    }
    if (expired > 0) this.logger.log({ msg: 'requests expired', expired, due: rows.length });
    return { due: rows.length, expired };
  }
}
