import { Worker } from 'node:worker_threads';
import type { ReceiverMessage, ReceiverReply } from './webhook-receiver-worker.js';

/** Drives `webhook-receiver-worker.ts`: one request/answer exchange at a time. */
export class BenchWebhookReceiver {
  private readonly worker = new Worker(new URL('./webhook-receiver-worker.js', import.meta.url));
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  private ask<K extends ReceiverReply['kind']>(
    message: ReceiverMessage,
    kind: K,
  ): Promise<Extract<ReceiverReply, { kind: K }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (reply: ReceiverReply) => {
        if (reply.kind !== kind) return;
        this.worker.off('message', onMessage);
        this.worker.off('error', reject);
        resolve(reply as Extract<ReceiverReply, { kind: K }>);
      };
      this.worker.on('message', onMessage);
      this.worker.once('error', reject);
      this.worker.postMessage(message);
    });
  }

  async start(): Promise<this> {
    this.port = (await this.ask({ kind: 'start' }, 'started')).port;
    return this;
  }

  /** How many requests arrived, and the first arrival (epoch ms) of each `requestId|status`. */
  async report(): Promise<{ received: number; unparsed: number; firstArrivals: Map<string, number> }> {
    const reply = await this.ask({ kind: 'report' }, 'report');
    return {
      received: reply.received,
      unparsed: reply.unparsed,
      firstArrivals: new Map(reply.firstArrivals),
    };
  }

  async reset(): Promise<void> {
    await this.ask({ kind: 'reset' }, 'reset');
  }

  async stop(): Promise<void> {
    await this.ask({ kind: 'stop' }, 'stopped');
    await this.worker.terminate();
  }
}
