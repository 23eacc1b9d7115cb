import { createPublicClient, createWalletClient, http, parseUnits, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { hardhat } from 'viem/chains';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { Decimal, formatUsd, fromUnits } from '../../../src/quotes/domain/pricing/decimal.js';
import { readArtifact } from '../../../scripts/devnet/deploy-devnet.js';
import { PRICE_FEED_DEPLOYER } from '../../../scripts/devnet/deploy-price-feeds.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { postJson } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';

const feedArtifact = readArtifact('TestPriceFeed');
const owner = privateKeyToAccount(PRICE_FEED_DEPLOYER.privateKey);

interface QuoteBody {
  details: { currencyIn: { amountUsd: string }; currencyOut: { amount: string; amountUsd: string } };
}

/**
 * Quotes priced from the devnet's feeds over HTTP (`PRICE_SOURCE=feeds`, as production): the USD figures follow
 * the feed's answer, a stale or zero answer refuses the quote with its errorCode and records nothing, and a dead
 * feed chain refuses rather than guesses.
 */
describe('quotes priced from onchain feeds', () => {
  let a: Devnet;
  let b: Devnet;
  let app: TestApp;
  let db: Database;

  const ethFeed = () => a.deployment.priceFeeds!.ETH;
  const setEth = async (functionName: 'setAnswer' | 'setRoundData', args: readonly unknown[]) => {
    const wallet = createWalletClient({ account: owner, chain: hardhat, transport: http(a.rpcUrl) });
    const hash = await wallet.writeContract({
      address: ethFeed(),
      abi: feedArtifact.abi,
      functionName,
      args,
    });
    const receipt = await createPublicClient({ transport: http(a.rpcUrl) }).waitForTransactionReceipt({
      hash,
    });
    expect(receipt.status).toBe('success');
  };
  const latestRoundId = async () =>
    (
      (await createPublicClient({ transport: http(a.rpcUrl) }).readContract({
        address: ethFeed(),
        abi: feedArtifact.abi,
        functionName: 'latestRoundData',
      })) as readonly bigint[]
    )[0];
  const quote = (target: TestApp = app) =>
    postJson(target, '/quote/v2', {
      user: a.accounts.user.address,
      originChainId: 31337,
      destinationChainId: 31338,
      originCurrency: zeroAddress,
      destinationCurrency: zeroAddress,
      amount: '20000000000000000',
      tradeType: 'EXACT_INPUT',
    });
  const eventCount = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    app = await startTestApp({
      DEVNET_A_RPC_URL: a.rpcUrl,
      DEVNET_B_RPC_URL: b.rpcUrl,
      PRICE_SOURCE: 'feeds',
    });
    db = app.app.get(DATABASE);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("prices from the feed: the input's USD value follows a changed ETH answer", async () => {
    const before = await quote();
    expect(before.code).toBe(200);
    expect((before.body as QuoteBody).details.currencyIn.amountUsd).toBe('60');

    await setEth('setAnswer', [parseUnits('2000', 8)]);
    const after = await quote();
    expect(after.code).toBe(200);
    const body = after.body as QuoteBody;
    expect(body.details.currencyIn.amountUsd).toBe('40');
    // The output (ETH less the fees, which are priced in ETH too) is valued at the new answer.
    const out = body.details.currencyOut;
    expect(out.amountUsd).toBe(
      formatUsd(fromUnits(BigInt(out.amount), 18).mul(Decimal.of(2000), 'halfExpand')),
    );
    expect(out.amountUsd).not.toBe((before.body as QuoteBody).details.currencyOut.amountUsd);

    await setEth('setAnswer', [parseUnits('3000', 8)]);
  });

  it('refuses the quote with 400 PRICE_STALE naming ETH when the feed is stale, and records nothing', async () => {
    const events = await eventCount();
    const old = BigInt(Math.floor(Date.now() / 1000)) - 7200n;
    const roundId = (await latestRoundId()) + 1n;
    await setEth('setRoundData', [roundId, parseUnits('3000', 8), old, old, roundId]);

    const { code, body } = await quote();
    expect(code).toBe(400);
    expect(body).toMatchObject({
      errorCode: 'PRICE_STALE',
      errorData: {
        symbol: 'ETH',
        chainId: 31337,
        address: zeroAddress,
        reason: 'stale',
        maxAgeSeconds: 3600,
      },
    });
    expect(await eventCount()).toBe(events);

    await setEth('setAnswer', [parseUnits('3000', 8)]);
    expect((await quote()).code).toBe(200);
  });

  it('refuses the quote with 400 PRICE_UNAVAILABLE on a zero answer (a free asset would be given away)', async () => {
    await setEth('setAnswer', [0n]);
    const { code, body } = await quote();
    expect(code).toBe(400);
    expect(body).toMatchObject({
      errorCode: 'PRICE_UNAVAILABLE',
      errorData: { symbol: 'ETH', reason: 'non-positive-answer' },
    });
    await setEth('setAnswer', [parseUnits('3000', 8)]);
  });

  it('/price is refused the same way', async () => {
    await setEth('setAnswer', [-1n]);
    const { code, body } = await postJson(app, '/price', {
      user: a.accounts.user.address,
      originChainId: 31337,
      destinationChainId: 31338,
      originCurrency: zeroAddress,
      destinationCurrency: zeroAddress,
      amount: '20000000000000000',
      tradeType: 'EXACT_INPUT',
    });
    expect(code).toBe(400);
    expect(body).toMatchObject({ errorCode: 'PRICE_UNAVAILABLE' });
    await setEth('setAnswer', [parseUnits('3000', 8)]);
  });

  it('with the feed chain down, feeds-only refuses (PRICE_UNAVAILABLE, unreachable); development falls back to the table', async () => {
    const dead = 'http://127.0.0.1:1';
    const production = await startTestApp({
      DEVNET_A_RPC_URL: dead,
      DEVNET_B_RPC_URL: b.rpcUrl,
      PRICE_SOURCE: 'feeds',
    });
    try {
      const { code, body } = await quote(production);
      expect(code).toBe(400);
      expect(body).toMatchObject({
        errorCode: 'PRICE_UNAVAILABLE',
        errorData: { symbol: 'ETH', reason: 'unreachable' },
      });
    } finally {
      await production.close();
    }
    const development = await startTestApp({
      DEVNET_A_RPC_URL: dead,
      DEVNET_B_RPC_URL: b.rpcUrl,
      PRICE_SOURCE: 'feeds-with-table-fallback',
    });
    try {
      const { code, body } = await quote(development);
      expect(code).toBe(200);
      expect((body as QuoteBody).details.currencyIn.amountUsd).toBe('60');
    } finally {
      await development.close();
    }
  });
});
