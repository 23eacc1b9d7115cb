import { PriceFeedReadError, readPriceFeed } from '../../../src/chains/read-price-feed.js';
import { ReadClients } from '../../../src/chains/read-clients.js';
import { rpcErrors, rpcRequests } from '../../../src/metrics/process-metrics.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { RpcProxy } from '../../support/rpc-proxy.js';

const TIMEOUT_MS = 2_000;
/** `getRoundData(uint80)`, the read's second round trip. */
const GET_ROUND_DATA = '0x9a6fc8f5';

const counted = async (counter: typeof rpcErrors) =>
  (await counter.get()).values.find((value) => value.labels.chain === '31337')?.value ?? 0;

/**
 * A price-feed read against a real devnet feed behind a slow provider (a proxy delaying its answers): the read's
 * deadline is an RPC error of the feed's chain in ferry_rpc_errors_total, counted once, as a call's own time-out is.
 */
describe(readPriceFeed.name, () => {
  let chain: Devnet;

  beforeAll(async () => {
    chain = await startDevnet({ chainId: 31337 });
  }, 120_000);
  afterAll(async () => chain?.stop());

  /** Reads the ETH feed through a proxy that answers `getRoundData` after `roundDataMs`, the other reads after `firstMs`. */
  const readThroughSlowProvider = async (firstMs: number, roundDataMs: number) => {
    const proxy = new RpcProxy(chain.rpcUrl, (method, params) => {
      if (method !== 'eth_call') return null;
      const data = (params[0] as { data?: string; input?: string }).data ?? '';
      return { kind: 'delay', ms: data.startsWith(GET_ROUND_DATA) ? roundDataMs : firstMs };
    });
    const url = await proxy.start();
    const clients = new ReadClients(TIMEOUT_MS);
    const [errors, requests] = [await counted(rpcErrors), await counted(rpcRequests)];
    const read = await readPriceFeed({
      client: (signal) => clients.until(url, 31337, signal),
      address: chain.deployment.priceFeeds!.ETH,
      timeoutMs: TIMEOUT_MS,
    }).catch((error: unknown) => error);
    // Past the abandoned call's own time-out (it started after the first round trip): nothing counted twice.
    await new Promise((resolve) => setTimeout(resolve, firstMs + 200));
    await proxy.stop();
    return {
      read,
      errors: (await counted(rpcErrors)) - errors,
      requests: (await counted(rpcRequests)) - requests,
    };
  };

  it('counts no RPC error for a read answered in time', async () => {
    const { read, errors, requests } = await readThroughSlowProvider(50, 50);
    expect(read).toMatchObject({ description: 'ETH / USD', decimals: 8 });
    // The four reads, and the eth_chainId check that comes before a URL's first read (chain-checked-fetch.ts).
    expect(requests).toBe(4 + 1);
    expect(errors).toBe(0);
  });

  it('counts a read that misses its deadline as an RPC error of its chain, once per call it abandoned', async () => {
    // decimals, description and latestRoundData answer at 800 ms; getRoundData, sent then, would answer at 2,400 ms:
    // after the read's deadline (2,000 ms), before its own time-out (2,800 ms).
    const { read, errors, requests } = await readThroughSlowProvider(800, 1_600);
    expect(read).toBeInstanceOf(PriceFeedReadError);
    expect(read).toMatchObject({
      kind: 'unreachable',
      message: expect.stringContaining('no answer within 2000 ms'),
    });
    expect(requests).toBe(4 + 1);
    expect(errors).toBe(1);
  });
});
