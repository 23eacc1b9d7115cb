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
      client = createPublicClient({
        transport: http(url, { timeout: this.timeoutMs, retryCount: 0, fetchFn: countingFetch(chain) }),
      }) as PublicClient;
      this.clients.set(url, client);
    }
    return client;
  }
}
