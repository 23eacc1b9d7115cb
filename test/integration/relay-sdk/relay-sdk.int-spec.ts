import {
  APIError,
  convertViemChainToRelayChain,
  createClient,
  type Execute,
  getClient,
  LogLevel,
} from '@relayprotocol/relay-sdk';
import { createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, requestStatus, settlementEnv } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { freshRecipient } from '../settlement/settlement-support.js';

/**
 * Relay's own SDK (`@relayprotocol/relay-sdk`, as integrators use it) against Ferry on two local chains, configured
 * only with Ferry's base URL and the chains: it quotes, executes the steps with a viem wallet, polls status to
 * success; and it reports a refused quote with Ferry's status and errorCode.
 */
describe("Relay's SDK against Ferry", () => {
  let a: Devnet;
  let b: Devnet;
  let app: TestApp;
  let baseApiUrl: string;
  let clients: ChainClients;

  const chainOf = (devnet: Devnet, name: string) =>
    defineChain({
      id: devnet.chainId,
      name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [devnet.rpcUrl] } },
    });

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b, { PROJECTIONS_RUN: 'true' }));
    await app.app.listen(0, '127.0.0.1');
    baseApiUrl = `http://127.0.0.1:${(app.app.getHttpServer().address() as AddressInfo).port}`;
    createClient({
      baseApiUrl,
      source: 'ferry.test',
      logLevel: LogLevel.None,
      pollingInterval: 200,
      confirmationPollingInterval: 200,
      maxPollingAttemptsBeforeTimeout: 150,
      chains: [
        convertViemChainToRelayChain(chainOf(a, 'Ferry Devnet A')),
        convertViemChainToRelayChain(chainOf(b, 'Ferry Devnet B')),
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('quotes, executes (approve + deposit) and follows a USDC bridge to success', async () => {
    const account = privateKeyToAccount(a.accounts.user.privateKey);
    const wallet = createWalletClient({
      account,
      chain: chainOf(a, 'Ferry Devnet A'),
      transport: http(a.rpcUrl),
    });
    const recipient = freshRecipient(0xf1);
    const quote = await getClient().actions.getQuote(
      {
        chainId: a.chainId,
        toChainId: b.chainId,
        currency: a.deployment.usdc,
        toCurrency: b.deployment.usdc,
        amount: '3000000',
        tradeType: 'EXACT_INPUT',
        wallet,
        recipient,
      },
      true,
    );
    const expected = BigInt(quote.details!.currencyOut!.amount!);
    const seen: string[] = [];
    const result = await getClient().actions.execute({
      quote,
      wallet,
      onProgress: ({ currentStep }) => {
        if (currentStep?.id && !seen.includes(currentStep.id)) seen.push(currentStep.id);
      },
    });
    const requestId = (quote as unknown as { protocol: { v2: { orderId: string } } }).protocol.v2.orderId;
    expect((await requestStatus(app, requestId)).status).toBe('success');
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, recipient)).toBe(expected);
    expect(seen.length).toBeGreaterThan(0);
    expect(
      (result.data as Execute).steps.every((step) => step.items?.every((item) => item.status === 'complete')),
    ).toBe(true);
  }, 90_000);

  it("reports a refused quote with Ferry's status and errorCode", async () => {
    const refused = getClient().actions.getQuote({
      chainId: a.chainId,
      toChainId: 424242,
      currency: a.deployment.usdc,
      toCurrency: b.deployment.usdc,
      amount: '3000000',
      tradeType: 'EXACT_INPUT',
      user: a.accounts.user.address,
      recipient: a.accounts.user.address,
    });
    await expect(refused).rejects.toBeInstanceOf(APIError);
    const error = (await refused.catch((caught: unknown) => caught)) as APIError;
    expect(error.statusCode).toBe(400);
    expect(error.rawError).toMatchObject({ errorCode: 'UNSUPPORTED_CHAIN', statusCode: 400 });
  });
});
