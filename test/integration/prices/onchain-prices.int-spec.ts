import {
  type Address,
  createPublicClient,
  createWalletClient,
  getAddress,
  type Hex,
  http,
  parseUnits,
  zeroAddress,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hardhat } from 'viem/chains';
import { systemClock } from '../../../src/common/clock.js';
import type { PriceFeedsConfig } from '../../../src/config/price-source-config.js';
import { ChainlinkPriceSource } from '../../../src/quotes/domain/pricing/feeds/chainlink-price-source.js';
import { createPriceSource } from '../../../src/quotes/domain/pricing/feeds/create-price-source.js';
import { PriceError } from '../../../src/quotes/domain/pricing/feeds/price-error.js';
import type { Currency } from '../../../src/requests/domain/records.js';
import { readArtifact } from '../../../scripts/devnet/deploy-devnet.js';
import {
  DEVNET_PRICE_FEEDS,
  devnetPriceFeedAddresses,
  PRICE_FEED_DEPLOYER,
} from '../../../scripts/devnet/deploy-price-feeds.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { RpcProxy } from '../../support/rpc-proxy.js';

const feedArtifact = readArtifact('TestPriceFeed');
const owner = privateKeyToAccount(PRICE_FEED_DEPLOYER.privateKey);

const currency = (symbol: string, chainId = 31337, address: string = zeroAddress): Currency => ({
  chainId,
  address,
  symbol,
  name: symbol,
  decimals: 18,
  metadata: { logoURI: '', verified: true },
});
const ETH = currency('ETH');

/** Records what a fallback source reports. */
function fallbackEvents() {
  const fallbacks: PriceError[] = [];
  let recoveries = 0;
  return {
    fallbacks,
    recoveries: () => recoveries,
    onFallback: (error: PriceError) => void fallbacks.push(error),
    onRecovered: () => void recoveries++,
  };
}

/** The refusal a price source rejected with (fails the test when it answered). */
async function refusal(answer: Promise<unknown>): Promise<PriceError> {
  try {
    await answer;
  } catch (error) {
    if (error instanceof PriceError) return error;
    throw error;
  }
  throw new Error('expected the price to be refused');
}

/**
 * The onchain price source against real feeds on a local chain: TestPriceFeed contracts (the devnet's own, deployed
 * by account #5, and fresh ones per test), read through viem as production reads Chainlink. Each attack on the
 * price (stale, zero, negative, incomplete, jumping, unreachable) must refuse rather than price.
 */
describe(ChainlinkPriceSource.name, () => {
  let a: Devnet;
  let b: Devnet;
  const wallet = () => createWalletClient({ account: owner, chain: hardhat, transport: http(a.rpcUrl) });
  const reader = () => createPublicClient({ transport: http(a.rpcUrl) });

  const write = async (
    feed: Address,
    functionName: 'setAnswer' | 'setRoundData',
    args: readonly unknown[],
  ) => {
    const hash = await wallet().writeContract({ address: feed, abi: feedArtifact.abi, functionName, args });
    const receipt = await reader().waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
  };
  const deployFeed = async (decimals: number, answer: bigint): Promise<Address> => {
    const hash = await wallet().deployContract({
      abi: feedArtifact.abi,
      bytecode: feedArtifact.bytecode,
      args: [decimals, 'TEST / USD', answer],
    });
    return getAddress((await reader().waitForTransactionReceipt({ hash })).contractAddress!);
  };
  const latestRound = async (feed: Address) =>
    (await reader().readContract({
      address: feed,
      abi: feedArtifact.abi,
      functionName: 'latestRoundData',
    })) as readonly [bigint, bigint, bigint, bigint, bigint];
  const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000));

  /** A source over one feed named ETH (WETH shares it), read at `rpcUrl`. */
  const feedsConfig = (
    address: Address,
    options: {
      rpcUrl?: string;
      maxDeviationBps?: number | null;
      description?: string | null;
      cacheMs?: number;
    } = {},
  ): PriceFeedsConfig => ({
    feeds: {
      ETH: {
        chainId: 31337,
        rpcUrl: options.rpcUrl ?? a.rpcUrl,
        address,
        maxAgeSeconds: 3600,
        maxDeviationBps: options.maxDeviationBps === undefined ? 2000 : options.maxDeviationBps,
        description: options.description === undefined ? null : options.description,
      },
    },
    symbols: { ETH: 'ETH', WETH: 'ETH' },
    overrides: [],
    cacheMs: options.cacheMs ?? 0,
  });
  const sourceOver = (address: Address, options: Parameters<typeof feedsConfig>[1] = {}) =>
    new ChainlinkPriceSource({ config: feedsConfig(address, options), timeoutMs: 1000, clock: systemClock });

  beforeAll(async () => {
    [a, b] = await startDevnets();
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('the devnet deploys one feed per priced asset on 31337 from account #5, answering the table values', async () => {
    expect(a.deployment.priceFeeds).toEqual(devnetPriceFeedAddresses());
    expect(b.deployment.priceFeeds).toBeNull();
    for (const { asset, usd } of DEVNET_PRICE_FEEDS) {
      const sut = sourceOver(a.deployment.priceFeeds![asset], { description: `${asset} / USD` });
      await expect(sut.usdPrice(ETH)).resolves.toBe(usd);
    }
  });

  it('reads the price, and a symbol mapped to the same feed shares it', async () => {
    const sut = sourceOver(await deployFeed(8, parseUnits('3000', 8)));
    await expect(sut.usdPrice(ETH)).resolves.toBe('3000');
    await expect(
      sut.usdPrice(currency('WETH', 31338, '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0')),
    ).resolves.toBe('3000');
  });

  it.each([
    [18, parseUnits('3000.123456789012345678', 18), '3000.123456789012345678'],
    [6, parseUnits('0.9998', 6), '0.9998'],
    [0, 150n, '150'],
  ])('converts a feed of %s decimals exactly', async (decimals, answer, usd) => {
    await expect(sourceOver(await deployFeed(decimals, answer)).usdPrice(ETH)).resolves.toBe(usd);
  });

  it('follows a new answer at once (no cache) and refuses a currency without a feed', async () => {
    const feed = await deployFeed(8, parseUnits('3000', 8));
    const sut = sourceOver(feed);
    await write(feed, 'setAnswer', [parseUnits('2900', 8)]);
    await expect(sut.usdPrice(ETH)).resolves.toBe('2900');
    const error = await refusal(sut.usdPrice(currency('UNI')));
    expect(error.errorCode).toBe('PRICE_UNAVAILABLE');
    expect(error.errorData).toMatchObject({ symbol: 'UNI', chainId: 31337, reason: 'no-feed' });
  });

  it('refuses a stale answer (updatedAt older than maxAgeSeconds) with PRICE_STALE naming the currency', async () => {
    const feed = await deployFeed(8, parseUnits('3000', 8));
    const old = nowSeconds() - 7200n;
    await write(feed, 'setRoundData', [2n, parseUnits('3000', 8), old, old, 2n]);
    const error = await refusal(sourceOver(feed).usdPrice(ETH));
    expect(error.errorCode).toBe('PRICE_STALE');
    expect(error.errorData).toMatchObject({
      symbol: 'ETH',
      chainId: 31337,
      address: zeroAddress,
      reason: 'stale',
      maxAgeSeconds: 3600,
      updatedAt: new Date(Number(old) * 1000).toISOString(),
      feed: { name: 'ETH', chainId: 31337, address: feed },
    });
  });

  it.each([
    ['zero', 0n],
    ['negative', -parseUnits('3000', 8)],
  ])('refuses a %s answer', async (_, answer) => {
    const feed = await deployFeed(8, parseUnits('3000', 8));
    await write(feed, 'setAnswer', [answer]);
    const error = await refusal(sourceOver(feed).usdPrice(ETH));
    expect(error.errorCode).toBe('PRICE_UNAVAILABLE');
    expect(error.errorData).toMatchObject({ reason: 'non-positive-answer', symbol: 'ETH' });
  });

  it('refuses an incomplete round (answeredInRound behind roundId)', async () => {
    const feed = await deployFeed(8, parseUnits('3000', 8));
    const now = nowSeconds();
    await write(feed, 'setRoundData', [2n, parseUnits('3000', 8), now, now, 1n]);
    expect((await refusal(sourceOver(feed).usdPrice(ETH))).errorData).toMatchObject({
      reason: 'incomplete-round',
    });
  });

  it('refuses a round dated in the future (it would never turn stale)', async () => {
    const feed = await deployFeed(8, parseUnits('3000', 8));
    const future = nowSeconds() + 86_400n;
    await write(feed, 'setRoundData', [2n, parseUnits('3000', 8), future, future, 2n]);
    expect((await refusal(sourceOver(feed).usdPrice(ETH))).errorData).toMatchObject({
      reason: 'future-round',
    });
  });

  it('refuses a jump past maxDeviationBps from the previous round, and accepts the next round that confirms it', async () => {
    const feed = await deployFeed(8, parseUnits('3000', 8));
    const sut = sourceOver(feed);
    await write(feed, 'setAnswer', [parseUnits('9000', 8)]);
    const error = await refusal(sut.usdPrice(ETH));
    expect(error.errorCode).toBe('PRICE_UNAVAILABLE');
    expect(error.errorData).toMatchObject({
      reason: 'deviation',
      previousAnswer: '3000',
      answer: '9000',
      maxDeviationBps: 2000,
    });
    await write(feed, 'setAnswer', [parseUnits('9000', 8)]);
    await expect(sut.usdPrice(ETH)).resolves.toBe('9000');
    const [roundId] = await latestRound(feed);
    expect(roundId).toBe(3n);
  });

  it("refuses a feed that prices another asset than configured (USDC pointed at ETH's feed would be 3000)", async () => {
    const sut = sourceOver(a.deployment.priceFeeds!.ETH, { description: 'USDC / USD' });
    const error = await refusal(sut.usdPrice(ETH));
    expect(error.errorCode).toBe('PRICE_UNAVAILABLE');
    expect(error.errorData).toMatchObject({
      reason: 'wrong-feed',
      description: 'ETH / USD',
      expectedDescription: 'USDC / USD',
    });
  });

  it('concurrent quotes share one read; a read (or a failure) is reused for cacheMs, its freshness checked on each use', async () => {
    let down = false;
    const proxy = new RpcProxy(a.rpcUrl, () => (down ? { kind: 'error', message: 'node down' } : null));
    const rpcUrl = await proxy.start();
    try {
      const latestReads = () => proxy.calls.filter((call) => call.method === 'eth_call').length;
      const uncached = sourceOver(a.deployment.priceFeeds!.ETH, { rpcUrl });
      await Promise.all([uncached.usdPrice(ETH), uncached.usdPrice(currency('WETH'))]);
      const oneRead = latestReads();
      expect(oneRead).toBe(4); // decimals, description, latestRoundData, getRoundData(previous)
      await uncached.usdPrice(ETH);
      expect(latestReads()).toBe(2 * oneRead);

      let nowMs = 1_000_000;
      const cached = new ChainlinkPriceSource({
        config: feedsConfig(a.deployment.priceFeeds!.ETH, { rpcUrl, cacheMs: 2000 }),
        timeoutMs: 1000,
        clock: systemClock,
        nowMs: () => nowMs,
      });
      await cached.usdPrice(ETH);
      await cached.usdPrice(ETH);
      expect(latestReads()).toBe(3 * oneRead);
      nowMs += 2000;
      down = true;
      const error = await refusal(cached.usdPrice(ETH));
      expect(error.errorData).toMatchObject({ reason: 'feed-error' });
      await refusal(cached.usdPrice(ETH));
      const failedCalls = latestReads();
      down = false;
      await refusal(cached.usdPrice(ETH)); // the failure is reused until cacheMs passes
      expect(latestReads()).toBe(failedCalls);
      nowMs += 2000;
      await expect(cached.usdPrice(ETH)).resolves.toBe('3000');
    } finally {
      await proxy.stop();
    }
  });

  it('feed chain down, production (feeds only): refuses with PRICE_UNAVAILABLE, reason unreachable', async () => {
    const sut = sourceOver(a.deployment.priceFeeds!.ETH, { rpcUrl: 'http://127.0.0.1:1' });
    const error = await refusal(sut.usdPrice(ETH));
    expect(error.errorCode).toBe('PRICE_UNAVAILABLE');
    expect(error.errorData).toMatchObject({ reason: 'unreachable', symbol: 'ETH' });
    // The answer carries no RPC detail (production URLs carry keys); the cause keeps it for the logs.
    expect(error.message).toBe('The ETH / USD price feed: its chain did not answer');
    expect(JSON.stringify(error.errorData)).not.toContain('127.0.0.1');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a feed address with no contract is a failed read, not an outage: no fallback may hide it', async () => {
    const events = fallbackEvents();
    const sut = createPriceSource({
      config: {
        mode: 'feeds-with-table-fallback',
        feeds: feedsConfig('0x00000000000000000000000000000000000f00d5' as Hex),
        table: { ETH: '3000' },
      },
      timeoutMs: 1000,
      clock: systemClock,
      events,
    });
    expect((await refusal(sut.usdPrice(ETH))).errorData).toMatchObject({ reason: 'feed-error' });
    expect(events.fallbacks).toHaveLength(0);
  });

  it('feed chain down, development: the table answers, said once; back up, the feed answers again; a stale feed is never hidden', async () => {
    const events = fallbackEvents();
    const feed = await deployFeed(8, parseUnits('2500', 8));
    let down = true;
    // The proxy drops the connection: the caller sees a chain that does not answer.
    const proxy = new RpcProxy(a.rpcUrl, () => (down ? { kind: 'hang-up-after-forward' } : null));
    const rpcUrl = await proxy.start();
    try {
      const sut = createPriceSource({
        config: {
          mode: 'feeds-with-table-fallback',
          feeds: feedsConfig(feed, { rpcUrl }),
          table: { ETH: '3000' },
        },
        timeoutMs: 1000,
        clock: systemClock,
        events,
      });
      await expect(sut.usdPrice(ETH)).resolves.toBe('3000');
      await expect(sut.usdPrice(ETH)).resolves.toBe('3000');
      expect(events.fallbacks.map((error) => error.reason)).toEqual(['unreachable']);

      down = false;
      await expect(sut.usdPrice(ETH)).resolves.toBe('2500');
      expect(events.recoveries()).toBe(1);

      const old = nowSeconds() - 7200n;
      await write(feed, 'setRoundData', [2n, parseUnits('2500', 8), old, old, 2n]);
      expect((await refusal(sut.usdPrice(ETH))).errorCode).toBe('PRICE_STALE');
      expect(events.fallbacks).toHaveLength(1);
    } finally {
      await proxy.stop();
    }
  });
});
