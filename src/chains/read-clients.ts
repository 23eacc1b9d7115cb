import { createPublicClient, http, type PublicClient } from 'viem';
import { chainCheckedFetch } from './chain-checked-fetch.js';

/**
 * One viem client per chain and RPC URL for reads that must never hold up a quote: each call bounded by `timeoutMs`, no retry
 * (the caller decides what a missing answer means). Nothing is read before the RPC answered `eth_chainId` with the
 * chain's id (`chainCheckedFetch`): an RPC serving another chain fails every call with a WrongChainError.
 */
export class ReadClients {
  private readonly clients = new Map<string, PublicClient>();

  constructor(private readonly timeoutMs: number) {}

  /**
   * The client of `url` for chain `chain`: the id its RPC must serve, and the label its calls are counted under
   * (ferry_rpc_requests_total), never the URL. Kept per chain and URL: one URL configured for two chains (the mistake
   * the check is for) gives two clients, each checked against its own chain.
   */
  of(url: string, chain: number): PublicClient {
    const key = `${chain}\n${url}`;
    let client = this.clients.get(key);
    if (!client) {
      client = this.create(url, chain);
      this.clients.set(key, client);
    }
    return client;
  }

  /**
   * A client of `url` as `of` gives, whose calls still waiting when `signal` aborts stop there and count as failed
   * (ferry_rpc_errors_total): for a read with a deadline of its own (`readPriceFeed`), whose abandoned calls would
   * otherwise run on to their own time-outs, or succeed unseen after the read gave up. Not kept: one per read.
   */
  until(url: string, chain: number, signal: AbortSignal): PublicClient {
    return this.create(url, chain, signal);
  }

  private create(url: string, chain: number, signal?: AbortSignal): PublicClient {
    return createPublicClient({
      transport: http(url, {
        timeout: this.timeoutMs,
        retryCount: 0,
        fetchFn: chainCheckedFetch(url, chain),
        ...(signal ? { fetchOptions: { signal } } : {}),
      }),
    }) as PublicClient;
  }
}
