import { createSolanaRpc, isBlockhash, type Rpc, type SolanaRpcApi } from '@solana/kit';
import { SharedReads } from '../../common/shared-reads.js';
import type { ChainInfo } from '../chain.js';

export interface SvmBlockhash {
  readonly blockhash: string;
  readonly lastValidBlockHeight: bigint;
}

/** Why a blockhash could not be read: no RPC configured (`not-configured`) or the RPC failed or timed out. */
export interface SvmBlockhashUnavailable {
  readonly unavailable: 'not-configured' | 'rpc-failed';
  readonly detail: string;
}

/**
 * Reads an SVM chain's latest blockhash (`getLatestBlockhash`, commitment `confirmed`) for deposit steps, bounded by
 * `timeoutMs` and reused for `cacheMs` (a blockhash stays valid for about 150 blocks, a minute; a short cache spares
 * the RPC without handing out a stale one). A failure is remembered for `cacheMs` as well, so a dead RPC costs one
 * timeout per period rather than one per quote. Never invents a blockhash: without an answer the quote is refused.
 */
export class SvmBlockhashReader {
  private readonly blockhashes: SharedReads<SvmBlockhash | SvmBlockhashUnavailable>;
  private readonly clients = new Map<string, Rpc<SolanaRpcApi>>();

  constructor(
    private readonly options: { readonly cacheMs: number; readonly timeoutMs: number },
    now: () => number = Date.now,
  ) {
    this.blockhashes = new SharedReads(options.cacheMs, now);
  }

  latestBlockhash(chain: ChainInfo): Promise<SvmBlockhash | SvmBlockhashUnavailable> {
    if (chain.vmType !== 'svm') throw new TypeError(`Chain ${chain.id} is not an SVM chain`);
    const { rpcUrl } = chain;
    if (!rpcUrl) {
      return Promise.resolve({
        unavailable: 'not-configured',
        detail: `no RPC is configured for chain ${chain.id} (set ${chain.rpcUrlVariable ?? 'its RPC URL variable'})`,
      });
    }
    return this.blockhashes.get(String(chain.id), () =>
      this.read(rpcUrl).catch((error: unknown): SvmBlockhashUnavailable => ({
        unavailable: 'rpc-failed',
        detail: `the RPC of chain ${chain.id} did not answer getLatestBlockhash: ${(error as Error).message}`,
      })),
    );
  }

  private async read(url: string): Promise<SvmBlockhash> {
    const { value } = await this.client(url)
      .getLatestBlockhash({ commitment: 'confirmed' })
      .send({ abortSignal: AbortSignal.timeout(this.options.timeoutMs) });
    if (!isBlockhash(value.blockhash)) throw new Error(`not a blockhash: ${JSON.stringify(value.blockhash)}`);
    return { blockhash: value.blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) };
  }

  private client(url: string): Rpc<SolanaRpcApi> {
    let client = this.clients.get(url);
    if (!client) {
      client = createSolanaRpc(url);
      this.clients.set(url, client);
    }
    return client;
  }
}

export const isSvmBlockhashUnavailable = (
  result: SvmBlockhash | SvmBlockhashUnavailable,
): result is SvmBlockhashUnavailable => 'unavailable' in result;
