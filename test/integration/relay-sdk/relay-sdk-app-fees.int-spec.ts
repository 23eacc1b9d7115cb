import { createClient, getClient, LogLevel } from '@relayprotocol/relay-sdk';
import { configureDynamicChains } from '@relayprotocol/relay-sdk/chain-utils';
import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { ChainClients, settlementEnv, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { freshRecipient } from '../settlement/settlement-support.js';

/**
 * Relay's SDK, unchanged, reads and claims app fees from Ferry (ARCHITECTURE §10): a bridge quoted through the SDK
 * with an app fee to the devnet user accrues it, `getAppFees` reads `{balances}`, and `claimAppFees` signs the claim id
 * (raw 32 bytes) with a viem wallet, posts it to `/execute/permits`, and the treasury pays real test USDC on 31338.
 */
describe('Relay SDK app fees against Ferry', () => {
  let a: Devnet;
  let b: Devnet;
  let app: TestApp;
  let clients: ChainClients;
  const complaints: unknown[][] = [];

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    await app.app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.app.getHttpServer().address();
    if (address === null || typeof address !== 'object') throw new Error('Ferry is not listening');
    createClient({
      baseApiUrl: `http://127.0.0.1:${address.port}`,
      source: 'ferry-test',
      pollingInterval: 200,
      confirmationPollingInterval: 100,
      maxPollingAttemptsBeforeTimeout: 50,
      logger: (message, level = LogLevel.Info) => {
        if (level <= LogLevel.Warn) complaints.push(message);
      },
    });
    await configureDynamicChains();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('accrues an app fee quoted through the SDK, reads it with getAppFees and claims it with claimAppFees', async () => {
    const user = privateKeyToAccount(a.accounts.user.privateKey);
    const walletOn = (devnet: Devnet) =>
      createWalletClient({
        account: user,
        chain: getClient().chains.find((chain) => chain.id === devnet.chainId)!.viemChain,
        transport: http(devnet.rpcUrl),
      });
    const quote = await getClient().actions.getQuote({
      chainId: a.chainId,
      toChainId: b.chainId,
      currency: a.deployment.usdc,
      toCurrency: b.deployment.usdc,
      amount: '50000000',
      tradeType: 'EXACT_INPUT',
      wallet: walletOn(a),
      user: user.address,
      recipient: freshRecipient(0x5d),
      options: { appFees: [{ recipient: user.address, fee: '100' }] },
    });
    await getClient().actions.execute({ quote, wallet: walletOn(a), onProgress: () => undefined });

    const balances = await waitFor(async () => {
      await waitForProjections(app);
      const read = await getClient().actions.getAppFees({ wallet: user.address });
      return read[0]?.amount !== '0' && read;
    }, 'the app fee to accrue');
    expect(balances).toEqual([
      expect.objectContaining({
        amount: '500000',
        currency: expect.objectContaining({ chainId: b.chainId }),
      }),
    ]);

    const before = await clients.balanceOf(b.chainId, b.deployment.usdc, user.address);
    await getClient().actions.claimAppFees({
      wallet: walletOn(b),
      chainId: b.chainId,
      currency: b.deployment.usdc,
    });
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, user.address)).toBe(before + 500_000n);
    await waitForProjections(app);
    expect((await getClient().actions.getAppFees({ wallet: user.address }))[0].amount).toBe('0');
    expect(complaints).toEqual([]);
  });
});
