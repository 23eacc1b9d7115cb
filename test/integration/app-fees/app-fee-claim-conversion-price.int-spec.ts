import { type Hex, parseUnits, zeroAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { readArtifact } from '../../../scripts/devnet/deploy-devnet.js';
import { PRICE_FEED_DEPLOYER } from '../../../scripts/devnet/deploy-price-feeds.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { deposit, type Quote } from '../settlement/settlement-support.js';

const CLAIMER = privateKeyToAccount(`0x${'c1'.repeat(32)}`);
const PAYEE = '0x00000000000000000000000000000000000c1a1d';
const feedArtifact = readArtifact('TestPriceFeed');
const feedOwner = privateKeyToAccount(PRICE_FEED_DEPLOYER.privateKey);

/**
 * Attack: the conversion prices of a claim paid in another currency are fixed when it is opened, and anyone may open
 * claims at any time. The claimer opens one while ETH is cheaper (2,400 USD), waits for ETH to go back to 3,000 USD, and
 * signs: at the frozen price it would be paid 25% more than its balance is worth. The payout is converted at the prices
 * of the signature when those pay less. Prices from the devnet's feeds (`PRICE_SOURCE=feeds`).
 */
describe('app-fee claims: a claim opened at a stale price pays no more than today’s', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;

  const setEth = async (usd: string) => {
    const hash = await clients.wallet(a.chainId).writeContract({
      account: feedOwner,
      chain: null,
      address: a.deployment.priceFeeds!.ETH,
      abi: feedArtifact.abi,
      functionName: 'setAnswer',
      args: [parseUnits(usd, 8)],
    });
    await clients.reader(a.chainId).waitForTransactionReceipt({ hash });
  };
  const available = async (address: string): Promise<bigint> => {
    await waitForProjections(app);
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
    return BigInt((response.json() as { balances: { amount: string }[] }).balances[0].amount);
  };

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp({ ...settlementEnv(a, b), PRICE_SOURCE: 'feeds' });
    const { code, body } = await postJson(app, '/quote/v2', {
      user: a.accounts.user.address,
      recipient: a.accounts.user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: '100000000',
      tradeType: 'EXACT_INPUT',
      appFees: [{ recipient: CLAIMER.address, fee: '100' }],
    });
    expect(code).toBe(200);
    const quote = body as Quote;
    await deposit(clients, a, quote);
    await waitFor(
      async () => (await requestStatus(app, quote.protocol.v2.orderId)).status === 'success',
      'success',
      60_000,
    );
    await waitFor(async () => (await available(CLAIMER.address)) > 0n, 'accrual', 30_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('opened at 2,400 USD per ETH, signed at 3,000: paid at 3,000', async () => {
    expect(await available(CLAIMER.address)).toBe(1_000_000n);
    await setEth('2400');
    const opened = await postJson(app, `/app-fees/${CLAIMER.address}/claim`, {
      chainId: b.chainId,
      currency: zeroAddress,
      recipient: PAYEE,
    });
    expect(opened.code).toBe(200);
    const claimId = (opened.body as { steps: { requestId: Hex }[] }).steps[0].requestId;
    await setEth('3000');
    await waitForProjections(app);
    const signature = await CLAIMER.signMessage({ message: { raw: claimId } });
    const paid = await postJson(app, `/execute/permits?signature=${signature}`, {
      kind: 'claim',
      requestId: claimId,
    });
    expect(paid.code).toBe(200);
    // (1 USDC − the 0.10 USD claim fee) at 3,000 USD per ETH = 0.0003 ETH, not the 0.000375 ETH of the frozen price.
    expect(await clients.reader(b.chainId).getBalance({ address: PAYEE })).toBe(300_000_000_000_000n);
    expect(await available(CLAIMER.address)).toBe(0n);
  });
});
