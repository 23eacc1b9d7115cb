import { createPublicClient, http, type PublicClient } from 'viem';

/**
 * One viem client per RPC URL for reads that must never hold up a quote: each call bounded by `timeoutMs`, no retry
 * (the caller decides what a missing answer means).
 */
export class ReadClients {
  private readonly clients = new Map<string, PublicClient>();

  constructor(private readonly timeoutMs: number) {}

  of(url: string): PublicClient {
    let client = this.clients.get(url);
    if (!client) {
      client = createPublicClient({
        transport: http(url, { timeout: this.timeoutMs, retryCount: 0 }),
      }) as PublicClient;
      this.clients.set(url, client);
    }
    return client;
  }
}
