import type {
  Position,
  ReadAllOptions,
  ReadAllResult,
  RecordedEvent,
  Subscription,
  SubscribeOptions,
} from './event-store.js';
import { START } from './event-store.js';

/** Wakes idle subscribers of this process when it appends, so they need not wait for the next poll. */
export class AppendSignal {
  private waiters = new Set<() => void>();

  notify(): void {
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const wake of waiters) wake();
  }

  /** Resolves after `ms`, or earlier on notify() or when `stop` is signalled. */
  wait(ms: number, stop: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        stop.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      stop.addEventListener('abort', done, { once: true });
    });
  }
}

/**
 * A catch-up subscription over any store's `readAll`: it reads batches from its position and, once caught up,
 * polls (or wakes on a local append). Each event is handed out once, in log order.
 */
export class PollingSubscription implements Subscription {
  private current: Position;
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;

  constructor(
    private readonly readAll: (options: ReadAllOptions) => Promise<ReadAllResult>,
    private readonly signal: AppendSignal,
    private readonly options: SubscribeOptions = {},
  ) {
    this.current = options.from ?? START;
  }

  get position(): Position {
    return this.current;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RecordedEvent> {
    const batchSize = this.options.maxCount ?? 1000;
    const pollIntervalMs = this.options.pollIntervalMs ?? 100;
    let release!: () => void;
    this.running = new Promise((resolve) => (release = resolve));
    try {
      while (!this.abort.signal.aborted) {
        const batch = await this.readAll({
          from: this.current,
          maxCount: batchSize,
          filter: this.options.filter,
        });
        for (const event of batch.events) {
          if (this.abort.signal.aborted) return;
          this.current = event.position;
          yield event;
        }
        this.current = batch.position;
        if (batch.isEnd) {
          await this.signal.wait(pollIntervalMs, this.abort.signal);
        }
      }
    } finally {
      release();
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }
}
