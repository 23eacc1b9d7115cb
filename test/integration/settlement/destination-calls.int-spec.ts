import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { sandboxOf } from '../../../src/solver/call-execution.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  waitFor,
  settlementEnv,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import {
  deposit,
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  type Quote,
} from './settlement-support.js';

/**
 * A caller's destination calls (`txs`) against the solver's funds, on two real local chains: the calls run in the
 * call executor's sandbox with exactly the output; their native value is part of what the output pays, refused at
 * quote time when it cannot; a call that fails after the payment is a success recording the failed call.
 */
describe('destination calls', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let db: Database;
  let seed = 0xd0;
  const attacker = privateKeyToAccount(`0x${'e5'.repeat(32)}` as Hex).address;

  const quote = async (body: Record<string, unknown>) => postJson(app, '/quote/v2', body);
  const usdcBody = (recipient: Address, txs: unknown[]) => ({
    user: a.accounts.user.address,
    recipient,
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: a.deployment.usdc,
    destinationCurrency: b.deployment.usdc,
    amount: '5000000',
    tradeType: 'EXACT_INPUT',
    txs,
  });
  const countEvents = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events')).rows[0].n);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    db = app.app.get<Database>(DATABASE);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("a call aimed at the solver's tokens (transfer of its whole balance) fails in the sandbox: success, failedCallData, the solver pays only the output", async () => {
    const recipient = freshRecipient(seed++);
    const solverBalance = await clients.balanceOf(b.chainId, b.deployment.usdc, a.accounts.solver.address);
    const drain = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [attacker, solverBalance],
    });
    const { code, body } = await quote(
      usdcBody(recipient, [{ to: b.deployment.usdc, value: '0', data: drain }]),
    );
    expect(code).toBe(200);
    const q = body as Quote;
    const id = q.protocol.v2.orderId;
    await deposit(clients, a, q);
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success');
    const output = BigInt(q.details.currencyOut.amount);
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, attacker)).toBe(0n);
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, recipient)).toBe(output);
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, a.accounts.solver.address)).toBe(
      solverBalance - output,
    );
    await waitForProjections(app);
    const { rows } = await db.query<{ state: { v3: { data: { failedCallData: unknown } } } }>(
      'SELECT state FROM requests_v3 WHERE id = $1',
      [id.toLowerCase()],
    );
    expect(rows[0].state.v3.data.failedCallData).toEqual({
      from: sandboxOf(b.deployment.callExecutor).toLowerCase(),
      to: b.deployment.usdc.toLowerCase(),
      data: drain,
      value: '0',
    });
    expect(await eventTypesOf(db, id)).not.toContain('RefundSucceeded');
  });

  it('calls spend the native output they were quoted with; the rest reaches the recipient', async () => {
    const recipient = freshRecipient(seed++);
    const probe = await quote(ethQuoteBody(a, b, a.accounts.user.address, recipient));
    const output = BigInt((probe.body as Quote).details.currencyOut.amount);
    const spend = output / 4n;
    const { code, body } = await quote({
      ...ethQuoteBody(a, b, a.accounts.user.address, recipient),
      txs: [{ to: attacker, value: spend.toString(), data: '0x' }],
    });
    expect(code).toBe(200);
    const q = body as Quote & { details: { callValue?: string } };
    expect(q.details.callValue).toBe(spend.toString());
    const before = await clients.balanceOf(b.chainId, ETH, attacker);
    await deposit(clients, a, q);
    await waitFor(
      async () => (await requestStatus(app, q.protocol.v2.orderId)).status === 'success',
      'success',
    );
    expect((await clients.balanceOf(b.chainId, ETH, attacker)) - before).toBe(spend);
    expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBe(
      BigInt(q.details.currencyOut.amount) - spend,
    );
  });

  it('refuses at quote time calls that revert when simulated as the executor runs them (DESTINATION_CALL_REVERTED)', async () => {
    const recipient = freshRecipient(seed++);
    const before = await countEvents();
    // A native output cannot pay a USDC transfer: the sandbox holds no USDC, so the call reverts.
    const transfer = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [attacker, 1_000_000n],
    });
    const { code, body } = await quote({
      ...ethQuoteBody(a, b, a.accounts.user.address, recipient),
      txs: [
        { to: attacker, value: '1', data: '0x' },
        { to: b.deployment.usdc, value: '0', data: transfer },
      ],
    });
    expect(code).toBe(400);
    expect(body).toMatchObject({
      errorCode: 'DESTINATION_CALL_REVERTED',
      statusCode: 400,
      errorData: { index: 1 },
      failedCallData: {
        from: sandboxOf(b.deployment.callExecutor),
        to: b.deployment.usdc,
        data: transfer,
        value: '0',
      },
      approxSimulatedBlock: expect.any(Number),
    });
    expect(await countEvents()).toBe(before);
  });

  it('refuses at quote time calls whose value the output cannot fund (CALL_VALUE_EXCEEDS_OUTPUT), recording nothing', async () => {
    const recipient = freshRecipient(seed++);
    const before = await countEvents();
    const tooMuch = await quote({
      ...ethQuoteBody(a, b, a.accounts.user.address, recipient),
      txs: [{ to: attacker, value: parseEther('5').toString(), data: '0x' }],
    });
    expect(tooMuch.code).toBe(400);
    expect(tooMuch.body).toMatchObject({ errorCode: 'CALL_VALUE_EXCEEDS_OUTPUT', statusCode: 400 });
    const withToken = await quote(usdcBody(recipient, [{ to: attacker, value: '1', data: '0x' }]));
    expect(withToken.code).toBe(400);
    expect(withToken.body).toMatchObject({
      errorCode: 'CALL_VALUE_EXCEEDS_OUTPUT',
      errorData: { callValue: '1' },
    });
    expect(await countEvents()).toBe(before);
  });
});
