import { type Chain, createPublicClient, http, type PublicClient } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import { chainCheckedFetch } from '../chains/chain-checked-fetch.js';

/** The chain's RPC, or a clear error naming the variable that would set it. */
export function rpcOf(chain: ChainInfo): string {
  if (!chain.rpcUrl)
    throw new Error(`Chain ${chain.id} has no RPC (${chain.rpcUrlVariable ?? 'not configured'})`);
  return chain.rpcUrl;
}

export function viemChain(chain: ChainInfo): Chain {
  return {
    id: chain.id,
    name: chain.displayName,
    nativeCurrency: {
      name: chain.nativeCurrency.name,
      symbol: chain.nativeCurrency.symbol,
      decimals: chain.nativeCurrency.decimals,
    },
    rpcUrls: { default: { http: [rpcOf(chain)] } },
  };
}

/**
 * One public client per chain for the solver's reads and broadcasts. No block-number cache (viem would reuse the
 * head for 4 s) and a bounded time per call: an RPC that hangs is an "unknown" outcome, never a stuck worker. Nothing
 * is read or sent before the RPC answered `eth_chainId` with the chain's id (`chainCheckedFetch`).
 */
export class EvmClients {
  private readonly clients = new Map<number, PublicClient>();

  constructor(private readonly timeoutMs = 10_000) {}

  of(chain: ChainInfo): PublicClient {
    let client = this.clients.get(chain.id);
    if (!client) {
      const url = rpcOf(chain);
      client = createPublicClient({
        chain: viemChain(chain),
        transport: http(url, {
          retryCount: 1,
          timeout: this.timeoutMs,
          fetchFn: chainCheckedFetch(url, chain.id),
        }),
        pollingInterval: 100,
        cacheTime: 0,
      }) as PublicClient;
      this.clients.set(chain.id, client);
    }
    return client;
  }
}
