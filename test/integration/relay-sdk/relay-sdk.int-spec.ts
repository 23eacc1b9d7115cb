import { type APIError, createClient, type Execute, getClient, LogLevel } from '@relayprotocol/relay-sdk';
import { configureDynamicChains } from '@relayprotocol/relay-sdk/chain-utils';
import { type Address, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { ChainClients, settlementEnv } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { freshRecipient } from '../settlement/settlement-support.js';

const ETH = '0x0000000000000000000000000000000000000000';

interface RecordV3 {
  id: string;
  status: string;
  recipient: string;
  data: { inTxs: { txHash: string }[]; outTxs: { txHash: string }[] };
}

/**
 * Relay's own SDK (`@relayprotocol/relay-sdk` 7), unchanged, against Ferry over real HTTP on loopback (docs/relay-sdk.md).
 * Configured only with Ferry's base URL and the chains Ferry lists (`GET /chains` through the SDK's
 * `configureDynamicChains`), it quotes, sends the steps from a viem wallet on devnet 31337, polls Ferry's status
 * until `success`, and the solver pays on 31338. A refused quote reaches the caller as the SDK's `APIError` with
 * Ferry's HTTP status and errorCode. ARCHITECTURE §10.
 */
describe('Relay SDK against Ferry on two local chains', () => {
  let a: Devnet;
  let b: Devnet;
  let app: TestApp;
  let baseApiUrl: string;
  let clients: ChainClients;
  /** What the SDK logs at Warn or Error (a failed `POST /transactions/index` is only logged). */
  const complaints: unknown[][] = [];
  /** Every message the SDK logs, by its first part. */
  const logged: unknown[] = [];

  /** getQuote → execute with a viem wallet for the devnet user; the progress seen and the executed quote. */
  const bridge = async (
    currencies: { currency: string; toCurrency: string; amount: string },
    recipient: Address,
  ) => {
    const wallet = createWalletClient({
      account: privateKeyToAccount(a.accounts.user.privateKey),
      chain: getClient().chains.find((chain) => chain.id === a.chainId)!.viemChain,
      transport: http(a.rpcUrl),
    });
    const quote = await getClient().actions.getQuote({
      chainId: a.chainId,
      toChainId: b.chainId,
      ...currencies,
      tradeType: 'EXACT_INPUT',
      wallet,
      user: wallet.account.address,
      recipient,
    });
    const progress: string[] = [];
    const { data } = await getClient().actions.execute({
      quote,
      wallet,
      onProgress: ({ currentStep, currentStepItem }) => {
        if (!currentStep || !currentStepItem) return;
        const entry = `${currentStep.id}:${currentStepItem.progressState ?? currentStepItem.checkStatus ?? '-'}`;
        if (progress.at(-1) !== entry) progress.push(entry);
      },
    });
    return { quote, data, progress, requestId: quote.steps![0].requestId as Hex };
  };
  /** The request's record from `GET /requests/v3?id=`, once the projections caught up. */
  const recordOf = async (requestId: Hex): Promise<RecordV3> => {
    await waitForProjections(app);
    const { key } = await app.app.get(ApiKeysService).create({ label: 'relay-sdk test' });
    const response = await fetch(`${baseApiUrl}/requests/v3?id=${requestId}`, {
      headers: { 'x-api-key': key },
    });
    expect(response.status).toBe(200);
    const { requests } = (await response.json()) as { requests: RecordV3[] };
    expect(requests).toHaveLength(1);
    return requests[0];
  };

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    await app.app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.app.getHttpServer().address();
    if (address === null || typeof address !== 'object') throw new Error('Ferry is not listening');
    baseApiUrl = `http://127.0.0.1:${address.port}`;
    createClient({
      baseApiUrl,
      source: 'ferry-test',
      // The SDK's defaults (5 s, 2.5 min) are for mainnets; a stuck poll fails the test in 10 s instead.
      pollingInterval: 200,
      confirmationPollingInterval: 100,
      maxPollingAttemptsBeforeTimeout: 50,
      logger: (message, level = LogLevel.Info) => {
        logged.push(message[0]);
        if (level <= LogLevel.Warn) complaints.push(message);
      },
    });
    await configureDynamicChains();
  }, 120_000);
  afterEach(() => {
    expect(complaints).toEqual([]);
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('takes both devnets, with their RPC URLs, from GET /chains', () => {
    const chains = getClient().chains.filter((chain) => chain.id === a.chainId || chain.id === b.chainId);
    expect(chains.map((chain) => [chain.id, chain.httpRpcUrl, chain.vmType, chain.viemChain?.id])).toEqual([
      [a.chainId, a.rpcUrl, 'evm', a.chainId],
      [b.chainId, b.rpcUrl, 'evm', b.chainId],
    ]);
  });

  it('bridges USDC 31337 → 31338: approve and deposit sent, status polled to success, paid as quoted', async () => {
    const recipient = freshRecipient(0x5a);
    const before = await clients.balanceOf(b.chainId, b.deployment.usdc, recipient);
    const { quote, data, progress, requestId } = await bridge(
      { currency: a.deployment.usdc, toCurrency: b.deployment.usdc, amount: '25000000' },
      recipient,
    );

    expect(quote.steps?.map((step) => step.id)).toEqual(['approve', 'deposit']);
    expect(data.steps?.flatMap((step) => step.items?.map((item) => item.status))).toEqual([
      'complete',
      'complete',
    ]);
    expect(progress).toEqual(
      expect.arrayContaining(['approve:confirming', 'deposit:validating', 'deposit:success']),
    );
    const quoted = BigInt(quote.details!.currencyOut!.amount!);
    expect(quoted).toBeGreaterThan(0n);
    expect((await clients.balanceOf(b.chainId, b.deployment.usdc, recipient)) - before).toBe(quoted);

    const deposit = depositItem(data);
    const record = await recordOf(requestId);
    expect(record).toMatchObject({ id: requestId, status: 'success' });
    expect(record.recipient.toLowerCase()).toBe(recipient.toLowerCase());
    expect(record.data.inTxs.map((tx) => tx.txHash)).toEqual(
      deposit.internalTxHashes?.map((tx) => tx.txHash),
    );
    expect(record.data.outTxs.map((tx) => tx.txHash)).toEqual([deposit.txHashes?.[0]?.txHash]);
    expect(deposit.txHashes?.[0]?.chainId).toBe(b.chainId);
    // The SDK told Ferry about the deposit (POST /transactions/index, keyless) and Ferry answered 2xx.
    expect(logged).toContain('Transaction notified to the solver');
  });

  it('bridges native ETH 31337 → 31338 with the one deposit step', async () => {
    const recipient = freshRecipient(0x5b);
    const { quote, data, requestId } = await bridge(
      { currency: ETH, toCurrency: ETH, amount: '100000000000000000' },
      recipient,
    );

    expect(quote.steps?.map((step) => step.id)).toEqual(['deposit']);
    expect(depositItem(data).checkStatus).toBe('success');
    expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(
      BigInt(quote.details!.currencyOut!.amount!),
    );
    expect((await recordOf(requestId)).status).toBe('success');
  });

  it.each([
    ['an unsupported chain', { toChainId: 424242 }, 'UNSUPPORTED_CHAIN', /424242/],
    ['an amount nothing would arrive of', { amount: '1' }, 'AMOUNT_TOO_LOW', /./],
  ])(
    'reports a refused quote (%s) as an APIError with Ferry’s status and errorCode',
    async (_, change, code, text) => {
      const user = a.accounts.user.address as Address;
      const refused = await getClient()
        .actions.getQuote({
          chainId: a.chainId,
          toChainId: b.chainId,
          currency: a.deployment.usdc,
          toCurrency: b.deployment.usdc,
          amount: '25000000',
          tradeType: 'EXACT_INPUT',
          user,
          recipient: user,
          ...change,
        })
        .then(
          () => null,
          (error: unknown) => error as APIError,
        );
      expect(refused).toMatchObject({
        name: 'APIError',
        statusCode: 400,
        rawError: { errorCode: code, statusCode: 400, endpoint: `${baseApiUrl}/quote/v2` },
      });
      expect(refused?.message).toMatch(text);
    },
  );
});

type StepItem = NonNullable<NonNullable<Execute['steps']>[number]['items']>[number];

/** The executed quote's deposit item: its last status check, deposit hashes and fill hashes as the SDK kept them. */
function depositItem(data: Execute) {
  const item = data.steps?.find((step) => step.id === 'deposit')?.items?.[0];
  if (!item) throw new Error('The executed quote has no deposit item');
  return item as StepItem & {
    checkStatus?: string;
    txHashes?: { txHash: string; chainId: number }[];
    internalTxHashes?: { txHash: string; chainId: number }[];
  };
}
