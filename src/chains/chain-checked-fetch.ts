import { Logger } from '@nestjs/common';
import { countingFetch, rpcChainMismatch, rpcErrors, rpcRequests } from '../metrics/process-metrics.js';

/**
 * An RPC configured for one chain answered `eth_chainId` with another: nothing is read through it. Its message never
 * holds the URL (providers put keys there).
 */
export class WrongChainError extends Error {
  readonly code = 'WRONG_CHAIN';

  constructor(
    readonly chainId: number,
    readonly servedChainId: number,
  ) {
    super(
      `The RPC configured for chain ${chainId} serves chain ${servedChainId}, not chain ${chainId}: Ferry reads ` +
        `nothing on chain ${chainId} through it. Check the chain's RPC URL variable (GET /health names it)`,
    );
    this.name = 'WrongChainError';
  }
}

/**
 * The WrongChainError behind an error, or null: viem wraps what its transport's fetch throws in `cause` (its
 * `BaseError.walk` follows the same chain), a few levels deep.
 */
export function wrongChainOf(error: unknown): WrongChainError | null {
  let cause = error;
  for (let depth = 0; cause && depth <= 8; depth += 1) {
    if (cause instanceof WrongChainError) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return null;
}

/** What this process last found an EVM chain's RPC serving: the chain (`verified`) or another (`wrong-chain`). */
export interface RpcChainCheck {
  readonly chainId: number;
  readonly status: 'verified' | 'wrong-chain';
  readonly servedChainId: number;
  /** Date.now() of the answer. */
  readonly checkedAt: number;
}

interface Entry {
  result: RpcChainCheck | null;
  /** performance.now() of the answer (monotonic), for its age. */
  at: number;
  checking: Promise<RpcChainCheck> | null;
  logged: boolean;
}

/** How long an answer stands: a verified RPC is asked again after 5 minutes, a wrong one after 30 s (a DNS fixed). */
export const VERIFIED_FOR_MS = 5 * 60_000;
export const WRONG_CHAIN_FOR_MS = 30_000;
const CHECK_TIMEOUT_MS = 10_000;

const logger = new Logger('Chains');

/** Process-wide, by chain id and URL: every client of one RPC shares one check. */
const entries = new Map<string, Entry>();

/**
 * A `fetch` for viem's http transport that reads chain `chainId` through `url` only once the RPC has answered
 * `eth_chainId` with `chainId`. Calls are counted as `countingFetch` counts them. The answer is shared by every
 * client of that URL and chain in the process and asked again after `VERIFIED_FOR_MS`, and after a call that failed to get an answer (a
 * reconnect may land on another node). An RPC serving another chain refuses every call with a WrongChainError
 * (counted in `ferry_rpc_errors_total`; `ferry_rpc_chain_mismatch` is 1 while one does) and is logged once, without its URL.
 *
 * @example createPublicClient({ transport: http(url, { fetchFn: chainCheckedFetch(url, chain.id) }) })
 */
export function chainCheckedFetch(url: string, chainId: number): typeof fetch {
  const counted = countingFetch(chainId);
  const chain = String(chainId);
  const entry = entryOf(url, chainId);
  return async (input, init) => {
    const check = await abortable(checkChainId(url, chainId, counted, entry), init?.signal);
    if (check.status === 'wrong-chain') {
      rpcRequests.inc({ chain });
      rpcErrors.inc({ chain });
      throw new WrongChainError(chainId, check.servedChainId);
    }
    try {
      return await counted(input, init);
    } catch (error) {
      entry.result = null;
      throw error;
    }
  };
}

/**
 * Asks `url` for its chain id now if no answer stands (the one check in flight is shared), and says what it serves.
 * Throws when the RPC does not answer: an RPC that cannot be asked is not read either.
 */
export function verifyRpcChainId(url: string, chainId: number): Promise<RpcChainCheck> {
  return checkChainId(url, chainId, countingFetch(chainId), entryOf(url, chainId));
}

/** What this process last found `url` serving, asked for chain `chainId`; null before it was asked. */
export function rpcChainCheckOf(url: string, chainId: number): RpcChainCheck | null {
  return entries.get(entryKey(url, chainId))?.result ?? null;
}

const entryKey = (url: string, chainId: number): string => `${chainId}\n${url}`;

function entryOf(url: string, chainId: number): Entry {
  const key = entryKey(url, chainId);
  let entry = entries.get(key);
  if (!entry) {
    entry = { result: null, at: 0, checking: null, logged: false };
    entries.set(key, entry);
  }
  return entry;
}

function checkChainId(
  url: string,
  chainId: number,
  counted: typeof fetch,
  entry: Entry,
): Promise<RpcChainCheck> {
  const { result } = entry;
  if (result) {
    const standsFor = result.status === 'verified' ? VERIFIED_FOR_MS : WRONG_CHAIN_FOR_MS;
    if (performance.now() - entry.at < standsFor) return Promise.resolve(result);
  }
  if (entry.checking) return entry.checking;
  const checking = askChainId(url, counted).then((served) => {
    const answer: RpcChainCheck = {
      chainId,
      status: served === chainId ? 'verified' : 'wrong-chain',
      servedChainId: served,
      checkedAt: Date.now(),
    };
    entry.result = answer;
    entry.at = performance.now();
    // 1 while any RPC of the chain this process reads with serves another chain.
    const wrong = [...entries.values()].some(
      (other) => other.result?.chainId === chainId && other.result.status === 'wrong-chain',
    );
    rpcChainMismatch.set({ chain: String(chainId) }, wrong ? 1 : 0);
    if (answer.status === 'wrong-chain' && !entry.logged) {
      entry.logged = true;
      logger.error(new WrongChainError(chainId, served).message);
    }
    if (answer.status === 'verified') entry.logged = false;
    return answer;
  });
  entry.checking = checking;
  const done = () => {
    if (entry.checking === checking) entry.checking = null;
  };
  checking.then(done, done);
  return checking;
}

async function askChainId(url: string, counted: typeof fetch): Promise<number> {
  const response = await counted(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'eth_chainId', params: [] }),
    signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`eth_chainId answered HTTP ${response.status}`);
  const body = (await response.json()) as { result?: unknown };
  if (typeof body.result !== 'string' || !/^0x[0-9a-fA-F]+$/.test(body.result)) {
    throw new Error('eth_chainId gave no chain id');
  }
  return Number(BigInt(body.result));
}

/** `promise`, or the abort of `signal` (the caller's own deadline) if that comes first. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
