import { decodeFunctionData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CommandBus } from '@nestjs/cqrs';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { depositoryAbi } from '../../src/chains/abi/depository.js';
import { erc20Abi } from '../../src/chains/abi/erc20.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { hashOrder } from '../../src/quotes/domain/order/order-data.js';
import { deriveDepositAddress } from '../../src/quotes/domain/steps/deposit-address.js';
import { buildNonceMappingTypedData } from '../../src/quotes/domain/steps/perps-a.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import { sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';

const USER = privateKeyToAccount(`0x${'59'.repeat(32)}` as Hex);
const OTHER = privateKeyToAccount(`0x${'7a'.repeat(32)}` as Hex);
const ETH = '0x0000000000000000000000000000000000000000';
const USDC_A = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const DEPOSITORY_A = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const PERPS_A_USDC = `0x${'0'.repeat(32)}`;
const PERPS_A_DEPOSITORY = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const SVM_USER = 'Gm3vZKoGGAAbPzZpiGDVbT7zkzK6Zr2sJS4eWJmJqcbb';

const bridge = (overrides: Record<string, unknown> = {}) => ({
  user: USER.address,
  originChainId: 31337,
  destinationChainId: 31338,
  originCurrency: USDC_A,
  destinationCurrency: USDC_A,
  amount: '25000000',
  tradeType: 'EXACT_INPUT',
  ...overrides,
});

/** `POST /quote/v2`, `POST /price` and `POST /authorize` on the real app over HTTP (Fastify inject), real PostgreSQL. */
describe('quotes', () => {
  let app: TestApp;
  let db: Database;
  let usdcB: string;

  const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await app.http.inject({ method: 'POST', url, payload: body as object, headers });
    return { code: response.statusCode, body: response.json(), headers: response.headers };
  };
  const eventsOf = async (requestId: string) =>
    (
      await db.query<{ type: string }>(
        'SELECT event_type AS type FROM events WHERE stream_id = $1 ORDER BY stream_revision',
        [`request-${requestId.toLowerCase()}`],
      )
    ).rows.map((row) => row.type);
  const eventCount = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events')).rows[0].n);

  beforeAll(async () => {
    app = await startTestApp();
    db = app.app.get(DATABASE);
    const chains = (await app.http.inject({ method: 'GET', url: '/chains' })).json() as {
      chains: { id: number; erc20Currencies?: { symbol: string; address: string }[] }[];
    };
    usdcB = chains.chains
      .find((chain) => chain.id === 31338)!
      .erc20Currencies!.find((c) => c.symbol === 'USDC')!.address;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('quotes an ERC-20 bridge: approve + deposit steps a wallet can send, and records the request as waiting', async () => {
    const { code, body } = await post('/quote/v2', bridge({ destinationCurrency: usdcB }));
    expect(code).toBe(200);
    const requestId = body.protocol.v2.orderId as Hex;
    expect(requestId).toMatch(/^0x[0-9a-f]{64}$/);
    expect(hashOrder(body.protocol.v2.orderData, app.config.quotes.hubChainId)).toBe(requestId);
    expect(body.protocol.v2.paymentDetails).toEqual({
      chainId: 'ferry-devnet-a',
      depository: expect.stringMatching(new RegExp(DEPOSITORY_A, 'i')),
      currency: expect.stringMatching(new RegExp(USDC_A, 'i')),
      amount: '25000000',
    });
    expect(body.steps.map((step: { id: string }) => step.id)).toEqual(['approve', 'deposit']);
    for (const step of body.steps) {
      expect(step.requestId).toBe(requestId);
      // Approvals carry no status check: Relay's SDK would poll it for success before the deposit (docs/steps.md).
      expect(step.items[0].check).toEqual(
        step.id === 'approve'
          ? undefined
          : { endpoint: `/intents/status/v3?requestId=${requestId}`, method: 'GET' },
      );
    }
    const approve = decodeFunctionData({ abi: erc20Abi, data: body.steps[0].items[0].data.data });
    expect(approve.functionName).toBe('approve');
    const deposit = body.steps[1].items[0].data;
    expect(deposit).toMatchObject({ chainId: 31337, value: '0' });
    expect(deposit.to.toLowerCase()).toBe(DEPOSITORY_A.toLowerCase());
    const call = decodeFunctionData({ abi: depositoryAbi, data: deposit.data });
    expect(call.functionName).toBe('depositErc20');
    expect(call.args).toEqual([USER.address, USDC_A, 25_000_000n, requestId]);

    // A USDC → USDC bridge: no swap or platform fee; the flat 0.02 USD and the fill gas come off the output.
    expect(body.details.operation).toBe('bridge');
    expect(body.details.currencyIn.amount).toBe('25000000');
    expect(BigInt(body.details.currencyOut.amount)).toBeLessThan(25_000_000n);
    expect(BigInt(body.details.currencyOut.amount)).toBeGreaterThan(24_000_000n);
    expect(body.fees.relayerService.amountUsd).toBe('0.02');
    expect(body.details.expandedPriceImpact.relay.usd).toBe('0');

    expect(await eventsOf(requestId)).toEqual(['RequestQuoted']);
    const status = await app.http.inject({ method: 'GET', url: body.steps[1].items[0].check.endpoint });
    expect(status.json()).toMatchObject({
      status: 'waiting',
      originChainId: 31337,
      destinationChainId: 31338,
    });
  });

  it('quotes a native deposit as one depositNative transaction carrying the amount', async () => {
    const { code, body } = await post(
      '/quote/v2',
      bridge({ originCurrency: ETH, destinationCurrency: ETH, amount: '10000000000000000' }),
    );
    expect(code).toBe(200);
    expect(body.steps).toHaveLength(1);
    const item = body.steps[0].items[0].data;
    expect(item.value).toBe('10000000000000000');
    const call = decodeFunctionData({ abi: depositoryAbi, data: item.data });
    expect(call).toEqual({ functionName: 'depositNative', args: [USER.address, body.protocol.v2.orderId] });
  });

  it('gives every Amount object a minimumAmount, and always answers feeSponsorship as an object', async () => {
    const { code, body } = await post(
      '/quote/v2',
      bridge({ originCurrency: ETH, destinationCurrency: ETH, amount: '10000000000000000' }),
    );
    expect(code).toBe(200);
    // Every Amount object (currency + amount + amountFormatted), wherever it sits in the answer.
    const amounts: { path: string; value: Record<string, unknown> }[] = [];
    const walk = (value: unknown, path: string) => {
      if (value === null || typeof value !== 'object') return;
      const record = value as Record<string, unknown>;
      if ('currency' in record && 'amount' in record && 'amountFormatted' in record)
        amounts.push({ path, value: record });
      for (const [key, child] of Object.entries(record)) walk(child, `${path}.${key}`);
    };
    walk(body, '');
    expect(amounts.map(({ path }) => path)).toEqual(
      expect.arrayContaining([
        '.fees.gas',
        '.fees.relayer',
        '.fees.relayerGas',
        '.fees.relayerService',
        '.fees.app',
        '.fees.subsidized',
      ]),
    );
    for (const { path, value } of amounts) {
      expect({ path, minimumAmount: typeof value.minimumAmount }).toEqual({ path, minimumAmount: 'string' });
    }
    // A fee is what it is: its minimum is itself (slippage applies to the output only).
    expect(body.fees.relayer.minimumAmount).toBe(body.fees.relayer.amount);
    expect(body.feeSponsorship).toMatchObject({
      quoted: {
        selectedComponents: [],
        capHit: false,
        sponsoredTotal: { amount: '0' },
        maxSubsidizationAmount: '0',
      },
      actual: null,
    });
    expect(body.feeSponsorship.quoted.userPaysTotal.amount).not.toBe('0');
  });

  it('quotes EXACT_OUTPUT by solving for the input', async () => {
    const { code, body } = await post(
      '/quote/v2',
      bridge({ destinationCurrency: usdcB, tradeType: 'EXACT_OUTPUT', amount: '10000000' }),
    );
    expect(code).toBe(200);
    expect(body.details.currencyOut.amount).toBe('10000000');
    expect(BigInt(body.details.currencyIn.amount)).toBeGreaterThan(10_000_000n);
  });

  it('puts app fees on the input and in the order, and on the recorded request', async () => {
    const recipient = OTHER.address;
    const { body } = await post(
      '/quote/v2',
      bridge({ destinationCurrency: usdcB, appFees: [{ recipient, fee: '100' }] }),
    );
    expect(body.fees.app.amount).toBe('250000');
    expect(body.protocol.v2.orderData.fees).toEqual([
      expect.objectContaining({ recipient: recipient.toLowerCase(), amount: '250000' }),
    ]);
  });

  it('gives a usePermit quote one authorize signature step posting to /execute/permits', async () => {
    const { code, body } = await post('/quote/v2', bridge({ destinationCurrency: usdcB, usePermit: true }));
    expect(code).toBe(200);
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]).toMatchObject({ id: 'authorize', kind: 'signature' });
    expect(body.steps[0].items[0].data.sign.primaryType).toBe('ReceiveWithAuthorization');
    expect(body.steps[0].items[0].data.post.endpoint).toBe('/execute/permits');
  });

  it.each([
    [
      'a withdrawal from the SVM chain',
      () => ({
        user: SVM_USER,
        recipient: USER.address,
        originChainId: 792703809,
        destinationChainId: 31337,
        originCurrency: '11111111111111111111111111111111',
        destinationCurrency: ETH,
        amount: '1000000000',
        tradeType: 'EXACT_INPUT',
      }),
      792703809,
      'origin',
    ],
    [
      'a deposit to the SVM chain',
      () =>
        bridge({
          recipient: SVM_USER,
          destinationChainId: 792703809,
          destinationCurrency: '11111111111111111111111111111111',
          originCurrency: ETH,
          amount: '100000000000000000',
        }),
      792703809,
      'destination',
    ],
    [
      'a withdrawal from perps exchange A',
      () => ({
        user: USER.address,
        originChainId: 1337,
        destinationChainId: 31338,
        originCurrency: PERPS_A_USDC,
        destinationCurrency: usdcB,
        amount: '1000000000',
        tradeType: 'EXACT_INPUT',
        protocolVersion: 'v2',
      }),
      1337,
      'origin',
    ],
    [
      'a deposit to perps exchange A',
      () => bridge({ destinationChainId: 1337, destinationCurrency: PERPS_A_USDC }),
      1337,
      'destination',
    ],
    [
      'a withdrawal from perps exchange B',
      () => ({
        user: '281474976710650',
        recipient: USER.address,
        originChainId: 3586256,
        destinationChainId: 31338,
        originCurrency: '0',
        destinationCurrency: usdcB,
        amount: '50000000',
        tradeType: 'EXACT_INPUT',
      }),
      3586256,
      'origin',
    ],
  ])(
    'refuses %s (SETTLEMENT_UNAVAILABLE): nothing reads or fills there, so no step is handed out and nothing is recorded',
    async (_, body, chainId, side) => {
      const before = await eventCount();
      for (const url of ['/quote/v2', '/price']) {
        const refused = await post(url, body());
        expect(refused.code).toBe(400);
        expect(refused.body).toMatchObject({
          errorCode: 'SETTLEMENT_UNAVAILABLE',
          errorData: { chainId, side },
        });
      }
      expect(await eventCount()).toBe(before);
    },
  );

  it('verifies a perps exchange A nonce mapping on POST /authorize against the recorded withdrawal', async () => {
    // Quotes for exchange A are refused until an adapter settles them; the authorization rules are kept and checked
    // on a withdrawal recorded as the quote would record it.
    const nonce = 1_764_000_000_000;
    const quote = sampleQuote(7, { originChainId: 1337, destinationChainId: 31338 });
    const requestId = quote.requestId as Hex;
    await app.app.get(CommandBus).execute(
      new ExecuteRequestCommand(
        requestId,
        {
          type: 'RecordQuote',
          data: {
            ...quote,
            user: USER.address,
            authorization: { kind: 'nonce-mapping', nonce, wallet: USER.address, depositor: USER.address },
          },
        },
        { actor: 'test' },
      ),
    );
    const typed = buildNonceMappingTypedData({
      requestId,
      perpsChainName: 'perps-a',
      walletChainId: 1337,
      wallet: USER.address,
      depositor: USER.address,
      nonce,
      signatureChainId: 1,
      verifyingContract: PERPS_A_DEPOSITORY,
    });
    const postBody = {
      type: 'nonce-mapping',
      walletChainId: 1337,
      wallet: USER.address,
      depositor: USER.address,
      nonce,
      id: requestId,
      signatureChainId: 1,
    };
    const rejected = await post(`/authorize?signature=${await OTHER.signTypedData(typed)}`, postBody);
    expect(rejected.code).toBe(400);
    expect(rejected.body.errorCode).toBe('INVALID_SIGNATURE');
    const wrongNonce = await post(`/authorize?signature=${await USER.signTypedData(typed)}`, {
      ...postBody,
      nonce: nonce + 1,
    });
    expect(wrongNonce.code).toBe(400);
    expect(wrongNonce.body.errorCode).toBe('INVALID_SIGNATURE');

    const signature = await USER.signTypedData(typed);
    const accepted = await post(`/authorize?signature=${signature}`, postBody);
    expect(accepted).toMatchObject({ code: 200, body: { requestId } });
    const again = await post(`/authorize?signature=${signature}`, postBody);
    expect(again.code).toBe(200);
    expect(await eventsOf(requestId)).toEqual(['RequestQuoted', 'WithdrawalAuthorized']);
  });

  it('offers a deposit address for a native-currency bridge: one plain transfer to the factory-derived address', async () => {
    const { code, body } = await post(
      '/quote/v2',
      bridge({
        originCurrency: ETH,
        destinationCurrency: ETH,
        amount: '10000000000000000',
        useDepositAddress: true,
      }),
    );
    expect(code).toBe(200);
    const address = deriveDepositAddress({
      requestId: body.protocol.v2.orderId,
      factory: '0xa513E6E4b8f2a923D98304ec87F64353C4D5C853',
      type: 'strict',
      user: USER.address,
    });
    expect(
      body.steps.map((step: { id: string; depositAddress: string }) => [step.id, step.depositAddress]),
    ).toEqual([['deposit', address]]);
    expect(body.steps[0].items[0].data).toMatchObject({
      to: address,
      data: '0x',
      value: '10000000000000000',
    });
    const watched = await db.query('SELECT 1 FROM deposit_addresses WHERE address = $1', [
      address.toLowerCase(),
    ]);
    expect(watched.rowCount).toBe(1);
  });

  it('refuses deposit addresses where the spec does not offer them (DEPOSIT_ADDRESS_UNAVAILABLE), recording nothing', async () => {
    const before = await eventCount();
    for (const body of [
      bridge({ useDepositAddress: true }),
      bridge({
        originCurrency: ETH,
        destinationCurrency: USDC_A,
        amount: '10000000000000000',
        useDepositAddress: true,
      }),
      bridge({
        originCurrency: ETH,
        destinationCurrency: ETH,
        amount: '10000000000000000',
        useDepositAddress: true,
        txs: [{ to: OTHER.address, value: '0', data: '0xdeadbeef' }],
      }),
    ]) {
      const refused = await post('/quote/v2', body);
      expect(refused.code).toBe(400);
      expect(refused.body).toMatchObject({
        errorCode: 'DEPOSIT_ADDRESS_UNAVAILABLE',
        errorData: { option: 'useDepositAddress', reason: 'not-native-bridge' },
      });
    }
    expect(await eventCount()).toBe(before);
  });

  it('names the request id in a refusal that comes after the order exists (usePermit on a currency without a permit), recording nothing', async () => {
    const before = await eventCount();
    const refused = await post(
      '/quote/v2',
      bridge({ originCurrency: ETH, destinationCurrency: ETH, amount: '10000000000000000', usePermit: true }),
    );
    expect(refused.code).toBe(400);
    expect(refused.body).toMatchObject({
      errorCode: 'UNSUPPORTED_OPTION',
      requestId: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await eventCount()).toBe(before);
    // A refusal before the order (bad input) has no request id to name.
    const early = await post('/quote/v2', bridge({ amount: '1.5' }));
    expect(early.body.requestId).toBeUndefined();
  });

  it('quotes destination calls as a Call request carrying the calls in the order output', async () => {
    const txs = [{ to: OTHER.address, value: '0', data: '0xdeadbeef' }];
    const { code, body } = await post('/quote/v2', bridge({ txs }));
    expect(code).toBe(200);
    expect(body.protocol.v2.orderData.output.calls).toEqual([
      expect.objectContaining({ to: OTHER.address.toLowerCase(), data: '0xdeadbeef' }),
    ]);
    const recorded = await db.query<{ data: { requestType: string; features: string[] } }>(
      "SELECT data FROM events WHERE stream_id = $1 AND event_type = 'RequestQuoted'",
      [`request-${body.protocol.v2.orderId.toLowerCase()}`],
    );
    // The platform-fee class is recorded: revenue share is decided by it (docs/app-fees.md).
    expect(recorded.rows[0].data).toMatchObject({
      requestType: 'Call',
      features: [],
      transactionType: 'token-bridge',
    });
  });

  it('needs a key with fee sponsorship to sponsor, and then sponsors within the cap', async () => {
    const refused = await post('/quote/v2', bridge({ destinationCurrency: usdcB, subsidizeFees: true }));
    expect(refused.code).toBe(400);
    expect(refused.body.errorCode).toBe('SPONSORSHIP_NOT_ALLOWED');

    const keys = app.app.get(ApiKeysService);
    const sponsor = await keys.create({ label: 'sponsor', feeSponsorshipEnabled: true });
    const { code, body } = await post(
      '/quote/v2',
      bridge({ destinationCurrency: usdcB, subsidizeFees: true }),
      {
        'x-api-key': sponsor.key,
      },
    );
    expect(code).toBe(200);
    expect(body.feeSponsorship.quoted.capHit).toBe(false);
    expect(BigInt(body.feeSponsorship.quoted.sponsoredTotal.amount)).toBeGreaterThan(0n);
    await waitForProjections(app);
  });

  it.each([
    ['an unknown chain', bridge({ originChainId: 424242 }), 'UNSUPPORTED_CHAIN'],
    [
      'an unlisted currency',
      bridge({ originCurrency: '0x1111111111111111111111111111111111111111' }),
      'UNSUPPORTED_CURRENCY',
    ],
    [
      'an EVM recipient on the SVM chain',
      bridge({
        destinationChainId: 792703809,
        destinationCurrency: 'So11111111111111111111111111111111111111112',
      }),
      'INVALID_ADDRESS',
    ],
    ['a malformed amount', bridge({ amount: '1.5' }), 'INVALID_INPUT'],
    ['a slippage above 10000', bridge({ slippageTolerance: '10001' }), 'INVALID_INPUT'],
    ['an unknown tradeType', bridge({ tradeType: 'EXACT' }), 'INVALID_INPUT'],
    [
      'a malformed app fee recipient',
      bridge({ appFees: [{ recipient: '0x12', fee: '10' }] }),
      'INVALID_INPUT',
    ],
    ['an amount too small to pay the fees', bridge({ amount: '100' }), 'AMOUNT_TOO_LOW'],
    [
      'an SQL-looking currency',
      bridge({ originCurrency: "0x'; DROP TABLE events; --" }),
      'UNSUPPORTED_CURRENCY',
    ],
  ])('refuses %s with 400 and appends nothing', async (_name, body, errorCode) => {
    const before = await eventCount();
    const response = await post('/quote/v2', body);
    expect(response.code).toBe(400);
    expect(response.body).toMatchObject({ errorCode, message: expect.any(String) });
    expect(await eventCount()).toBe(before);
  });

  it('answers POST /price with fees and details only, deprecation headers, and records nothing', async () => {
    const before = await eventCount();
    const { code, body, headers } = await post('/price', bridge({ destinationCurrency: usdcB }));
    expect(code).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['details', 'fees']);
    expect(body.details.steps).toBeUndefined();
    expect(Object.keys(body.details)).not.toContain('expandedPriceImpact');
    expect(headers.deprecation).toBe('true');
    expect(headers.link).toContain('/quote/v2');
    expect(await eventCount()).toBe(before);
  });
});
