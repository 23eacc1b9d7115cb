import { type Address, encodeFunctionData, parseAbi } from 'viem';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { deposit, ETH, freshRecipient, type Quote } from './settlement-support.js';

type Side = 'a' | 'b';
type Token = 'ETH' | 'USDC' | 'WETH';

/**
 * Every EVM flow a quote can describe on the local chains, followed as a wallet would: each step Ferry returns is
 * sent, and the request must reach `success` with the recipient paid exactly what the record says arrived. A flow
 * Ferry cannot complete must be refused at quote time instead (docs/quotes.md, "Flows").
 */
describe('every quoted EVM flow executes and settles', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let apiKey: string;
  let seed = 0x61;

  const chain = (side: Side) => (side === 'a' ? a : b);
  const address = (side: Side, token: Token): Address =>
    token === 'ETH' ? ETH : token === 'USDC' ? chain(side).deployment.usdc : chain(side).deployment.weth;
  const body = (from: [Side, Token], to: [Side, Token], amount: string, recipient: Address) => ({
    user: a.accounts.user.address,
    recipient,
    originChainId: chain(from[0]).chainId,
    destinationChainId: chain(to[0]).chainId,
    originCurrency: address(...from),
    destinationCurrency: address(...to),
    amount,
    tradeType: 'EXACT_INPUT',
  });

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    apiKey = (await app.app.get(ApiKeysService).create({ label: 'flows' })).key;
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it.each<[string, [Side, Token], [Side, Token], string, string]>([
    ['a native bridge (depositNative)', ['a', 'ETH'], ['b', 'ETH'], '30000000000000000', 'Bridge'],
    ['an ERC-20 bridge (approve + depositErc20)', ['a', 'USDC'], ['b', 'USDC'], '12000000', 'Bridge'],
    ['a cross-chain swap ETH → USDC', ['a', 'ETH'], ['b', 'USDC'], '10000000000000000', 'Crosschain Swap'],
    ['a cross-chain swap USDC → ETH', ['a', 'USDC'], ['b', 'ETH'], '40000000', 'Crosschain Swap'],
    ['a same-chain swap USDC → ETH', ['a', 'USDC'], ['a', 'ETH'], '40000000', 'Same-chain Swap'],
  ])(
    '%s: every step sent, success, the recipient got what the record says',
    async (_, from, to, amount, type) => {
      const recipient = freshRecipient(seed++);
      const { code, body: quoted } = await postJson(app, '/quote/v2', body(from, to, amount, recipient));
      expect(code).toBe(200);
      const quote = quoted as Quote;
      const id = quote.protocol.v2.orderId;
      const destination = chain(to[0]).chainId;
      const before = await clients.balanceOf(destination, address(...to), recipient);
      await deposit(clients, a, quote);
      await waitFor(async () => (await requestStatus(app, id)).status === 'success', `${type} success`);

      const received = (await clients.balanceOf(destination, address(...to), recipient)) - before;
      expect(received).toBe(BigInt(quote.details.currencyOut.amount));
      await waitForProjections(app);
      const response = await app.http.inject({
        method: 'GET',
        url: `/requests/v3?id=${id}`,
        headers: { 'x-api-key': apiKey },
      });
      const [record] = (
        response.json() as {
          requests: {
            requestType: string;
            data: {
              route: { actual: Record<'origin' | 'destination', { outputCurrency: { amount: string } }> };
            };
          }[];
        }
      ).requests;
      expect(record.requestType).toBe(type);
      const side = from[0] === to[0] ? 'origin' : 'destination';
      expect(record.data.route.actual[side].outputCurrency.amount).toBe(received.toString());
    },
  );

  it('an unwrap WETH → ETH on one chain (approve + depositErc20 of WETH): success, the recipient paid in ETH', async () => {
    // The user wraps some ETH first (TestWETH.deposit), as a wallet holding WETH would have.
    await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      a.deployment.weth,
      encodeFunctionData({ abi: parseAbi(['function deposit() payable']), functionName: 'deposit' }),
      10_000_000_000_000_000n,
    );
    const recipient = freshRecipient(seed++);
    const { code, body: quoted } = await postJson(
      app,
      '/quote/v2',
      body(['a', 'WETH'], ['a', 'ETH'], '10000000000000000', recipient),
    );
    expect(code).toBe(200);
    const quote = quoted as Quote;
    await deposit(clients, a, quote);
    await waitFor(
      async () => (await requestStatus(app, quote.protocol.v2.orderId)).status === 'success',
      'unwrap success',
    );
    expect(await clients.balanceOf(a.chainId, ETH, recipient)).toBe(BigInt(quote.details.currencyOut.amount));
  });

  it('refuses a wrap the solver cannot pay (it holds no WETH): INSUFFICIENT_LIQUIDITY, nothing recorded', async () => {
    const recipient = freshRecipient(seed++);
    const { code, body: refused } = await postJson(
      app,
      '/quote/v2',
      body(['a', 'ETH'], ['a', 'WETH'], '10000000000000000', recipient),
    );
    expect(code).toBe(400);
    expect(refused).toMatchObject({
      errorCode: 'INSUFFICIENT_LIQUIDITY',
      errorData: { chainId: a.chainId, available: '0' },
    });
  });
});
