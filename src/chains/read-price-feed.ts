import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  HttpRequestError,
  type PublicClient,
  TimeoutError,
  WebSocketRequestError,
} from 'viem';
import { aggregatorV3Abi } from './abi/aggregator-v3.js';

/** One round as the feed returns it (`latestRoundData`, `getRoundData`). */
export interface PriceFeedRound {
  readonly roundId: bigint;
  readonly answer: bigint;
  readonly startedAt: bigint;
  readonly updatedAt: bigint;
  readonly answeredInRound: bigint;
}

export interface ReadPriceFeedParameters {
  /**
   * The client to read with, given the signal the deadline aborts: its calls still waiting then stop and count as
   * failed RPC calls of the feed's chain (`ReadClients.until`).
   */
  readonly client: (signal: AbortSignal) => PublicClient;
  readonly address: Address;
  /** The whole read (two round trips) is abandoned after this. */
  readonly timeoutMs: number;
}

export interface ReadPriceFeedReturnType {
  readonly decimals: number;
  /** What the feed says it prices (`"ETH / USD"`). */
  readonly description: string;
  readonly latest: PriceFeedRound;
  /** Round `roundId - 1`, or null when the feed has none (its first round, or a new Chainlink phase). */
  readonly previous: PriceFeedRound | null;
}

/**
 * Why a feed could not be read: `unreachable` when its chain did not answer (transport error, timeout), so a
 * development fallback may stand in; `failed` when the chain answered but the feed did not (no contract at the
 * address, a revert), which no fallback may hide.
 */
export class PriceFeedReadError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'failed',
    readonly address: Address,
    cause: unknown,
  ) {
    super(
      `Price feed ${address}: ${kind === 'unreachable' ? 'its chain did not answer' : 'the read failed'} ` +
        `(${cause instanceof BaseError ? cause.shortMessage : String((cause as Error)?.message ?? cause)})`,
      { cause },
    );
    this.name = 'PriceFeedReadError';
  }
}

/**
 * Reads a Chainlink-style feed (`AggregatorV3Interface`): `decimals`, `description` and `latestRoundData` in
 * parallel, then the previous round for the deviation check. Plain reads rather than multicall: the local chains
 * have no Multicall3, and two round trips stay well inside the timeout. At the deadline the calls still waiting for
 * an answer are aborted: a read that misses it counts in ferry_rpc_errors_total, once per abandoned call, as a call's
 * own time-out does.
 *
 * @example
 * const { decimals, latest } = await readPriceFeed({
 *   client: (signal) => clients.until(rpcUrl, chainId, signal),
 *   address: ethUsd,
 *   timeoutMs: 1500,
 * });
 */
export async function readPriceFeed({
  client,
  address,
  timeoutMs,
}: ReadPriceFeedParameters): Promise<ReadPriceFeedReturnType> {
  const abandon = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new PriceFeedReadError(
        'unreachable',
        address,
        new Error(`no answer within ${timeoutMs} ms`),
      );
      reject(error);
      abandon.abort(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([read(client(abandon.signal), address), deadline]);
  } catch (error) {
    if (error instanceof PriceFeedReadError) throw error;
    throw new PriceFeedReadError(isUnreachable(error) ? 'unreachable' : 'failed', address, error);
  } finally {
    clearTimeout(timer);
  }
}

async function read(client: PublicClient, address: Address): Promise<ReadPriceFeedReturnType> {
  const [decimals, description, latestTuple] = await Promise.all([
    client.readContract({ address, abi: aggregatorV3Abi, functionName: 'decimals' }),
    client.readContract({ address, abi: aggregatorV3Abi, functionName: 'description' }),
    client.readContract({ address, abi: aggregatorV3Abi, functionName: 'latestRoundData' }),
  ]);
  const latest = round(latestTuple);
  let previous: PriceFeedRound | null = null;
  if (latest.roundId > 0n) {
    try {
      previous = round(
        await client.readContract({
          address,
          abi: aggregatorV3Abi,
          functionName: 'getRoundData',
          args: [latest.roundId - 1n],
        }),
      );
    } catch (error) {
      // Chainlink reverts for a round it never had (the first one of a phase): nothing to compare with.
      if (!isRevert(error)) throw error;
    }
  }
  return { decimals, description, latest, previous: previous && previous.updatedAt > 0n ? previous : null };
}

function round([roundId, answer, startedAt, updatedAt, answeredInRound]: readonly [
  bigint,
  bigint,
  bigint,
  bigint,
  bigint,
]): PriceFeedRound {
  return { roundId, answer, startedAt, updatedAt, answeredInRound };
}

function isUnreachable(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk(
      (cause) =>
        cause instanceof HttpRequestError ||
        cause instanceof TimeoutError ||
        cause instanceof WebSocketRequestError,
    ) !== null
  );
}

function isRevert(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk(
      (cause) =>
        cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError,
    ) !== null
  );
}
