import { createPublicClient, http, type PublicClient } from 'viem';
import { countingFetch } from '../metrics/process-metrics.js';

/**
 * One viem client per RPC URL for reads that must never hold up a quote: each call bounded by `timeoutMs`, no retry
 * (the caller decides what a missing answer means).
 */
export class ReadClients {
  private readonly clients = new Map<string, PublicClient>();

  constructor(private readonly timeoutMs: number) {}

  /** The client of `url`; its calls are counted under `chain` (ferry_rpc_requests_total), never under the URL. */
  of(url: string, chain: number | string): PublicClient {
    let client = this.clients.get(url);
    if (!client) {
      client = this.create(url, chain);
      this.clients.set(url, client);
    }
    return client;
  }

  /**
   * A client of `url` as `of` gives, whose calls still waiting when `signal` aborts stop there and count as failed
   * (ferry_rpc_errors_total): for a read with a deadline of its own (`readPriceFeed`), whose abandoned calls would
   * otherwise run on to their own time-outs, or succeed unseen after the read gave up. Not kept: one per read.
   */
  until(url: string, chain: number | string, signal: AbortSignal): PublicClient {
    return this.create(url, chain, signal);
  }

  private create(url: string, chain: number | string, signal?: AbortSignal): PublicClient {
    return createPublicClient({
      transport: http(url, {
        timeout: this.timeoutMs,
        retryCount: 0,
        fetchFn: countingFetch(chain),
        ...(signal ? { fetchOptions: { signal } } : {}),
      }),
    }) as PublicClient;
  }
}
