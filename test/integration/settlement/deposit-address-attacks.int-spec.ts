import { type Address, encodeFunctionData, type Hex } from 'viem';
import { depositAddressFactoryAbi } from '../../../src/chains/abi/deposit-address-factory.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import {
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  smartWalletAbi,
  depositNativeFor,
} from './settlement-support.js';

/**
 * Attacks on deposit addresses with tokens, played on real chains: a token another than the native currency sent to
 * a deposit address is refused (WRONG_CURRENCY) and given back, which costs the solver gas and marks the address as
 * having had a transfer. Neither may be turned against Ferry or its users.
 */
describe('deposit-address attacks with tokens on local chains', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let app: TestApp;
  let db: Database;
  let seed = 0xa0;

  const addressQuote = async (extra: Record<string, unknown> = {}) => {
    const recipient = freshRecipient(seed++);
    const { code, body } = await postJson(app, '/quote/v2', {
      ...ethQuoteBody(a, b, a.accounts.user.address, recipient),
      useDepositAddress: true,
      ...extra,
    });
    expect(code).toBe(200);
    const quote = body as {
      steps: { depositAddress: Address }[];
      protocol: { v2: { orderId: Hex } };
      details: { currencyIn: { amount: string } };
    };
    return {
      id: quote.protocol.v2.orderId,
      address: quote.steps[0].depositAddress,
      amount: BigInt(quote.details.currencyIn.amount),
      recipient,
    };
  };
  const sendUsdc = (to: Address, amount: bigint) =>
    clients.send(
      a.chainId,
      a.accounts.relayer.privateKey,
      a.deployment.usdc,
      encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
    );
  const giveBackDone = (id: Hex) =>
    waitFor(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM solver_jobs WHERE request_id = $1 AND kind = 'give-back' AND state = 'done'`,
            [id.toLowerCase()],
          )
        ).rowCount === 1,
      'the give-back job done',
      30_000,
    );

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    database = await createTestDatabase('ferry_deposit_address_attacks');
    app = await startTestApp(settlementEnv(a, b), [], undefined, database);
    db = app.app.get<Database>(DATABASE);
    // The attacker's tokens: a little USDC from the devnet user.
    await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      a.deployment.usdc,
      encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [a.accounts.relayer.address, 1_000n],
      }),
    );
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('token dust (1 unit of USDC) sent to a deposit address is not given back: the solver spends no gas on it', async () => {
    // Attack: one USDC unit per transaction to fresh deposit addresses; each give-back deploys a receiver and moves
    // the token at the solver's expense, many times what the attacker's transfer cost.
    const { id, address } = await addressQuote();
    await sendUsdc(address, 1n);
    await waitFor(
      async () => (await eventTypesOf(db, id)).includes('DepositAddressTransferRefused'),
      'the transfer refused',
    );
    await giveBackDone(id);
    expect(await journalOf(db, id)).toEqual([]);
    // Left for the recovery address (`recoverToken`).
    expect(await clients.balanceOf(a.chainId, a.deployment.usdc, address)).toBe(1n);
  }, 60_000);

  it('token dust sent first does not hide a smart-wallet payment: the payment is still found, swept and filled', async () => {
    // Attack: an address with a recorded transfer is no longer checked by balance, so one USDC unit sent ahead of a
    // smart wallet's payment would leave that payment unseen until the request expired (the user's funds locked).
    const { id, address, amount, recipient } = await addressQuote();
    await sendUsdc(address, 1n);
    await waitFor(
      async () => (await eventTypesOf(db, id)).includes('DepositAddressTransferRefused'),
      'the token transfer refused',
    );
    const paid = await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      a.deployment.smartWallet,
      encodeFunctionData({
        abi: smartWalletAbi,
        functionName: 'executeBatch',
        args: [[{ to: address, value: amount, data: '0x' }]],
      }),
      amount,
    );
    expect(paid.status).toBe('success');
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success', 30_000);
    expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBeGreaterThan(0n);
    expect(await clients.balanceOf(a.chainId, ETH, address)).toBe(0n);
  }, 60_000);

  it('one smart-wallet batch paying USDC to two deposit addresses: both are given back, not only the first', async () => {
    // Attack (or an exchange's batched withdrawal): the watcher took one token log per transaction, so every address
    // after the first kept its USDC until someone called recoverToken.
    const usdc = a.deployment.usdc;
    const amount = 3_000_000n;
    await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      usdc,
      encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [a.deployment.smartWallet, 2n * amount],
      }),
    );
    const refunds = [freshRecipient(0xe1), freshRecipient(0xe2)];
    const quotes = [
      await addressQuote({ refundTo: refunds[0] }),
      await addressQuote({ refundTo: refunds[1] }),
    ];
    const batch = await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      a.deployment.smartWallet,
      encodeFunctionData({
        abi: smartWalletAbi,
        functionName: 'executeBatch',
        args: [
          quotes.map((quote) => ({
            to: usdc,
            value: 0n,
            data: encodeFunctionData({
              abi: erc20Abi,
              functionName: 'transfer',
              args: [quote.address, amount],
            }),
          })),
        ],
      }),
    );
    expect(batch.status).toBe('success');
    await waitFor(
      async () =>
        (await clients.balanceOf(a.chainId, usdc, refunds[0])) === amount &&
        (await clients.balanceOf(a.chainId, usdc, refunds[1])) === amount,
      'the USDC given back at both addresses',
      30_000,
    );
    for (const quote of quotes) {
      expect(await clients.balanceOf(a.chainId, usdc, quote.address)).toBe(0n);
    }
  }, 60_000);

  it('one transfer reported by the watcher and by POST /transactions/index (three times at once) is swept and filled once', async () => {
    const { id, address, amount, recipient } = await addressQuote();
    const transfer = await clients.send(a.chainId, a.accounts.user.privateKey, address, undefined, amount);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        postJson(app, '/transactions/index', { chainId: a.chainId, txHash: transfer.transactionHash }),
      ),
    );
    expect(answers.map((answer) => answer.code)).toEqual([200, 200, 200]);
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success', 30_000);
    await waitFor(
      async () => (await journalOf(db, id)).every((entry) => entry.state === 'mined'),
      'every entry settled',
    );
    expect((await journalOf(db, id)).map((entry) => entry.purpose)).toEqual(['sweep', 'fill']);
    expect((await eventTypesOf(db, id)).filter((type) => type === 'DepositAddressFunded')).toHaveLength(1);
    expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBeGreaterThan(0n);
  }, 60_000);

  it('a strict address paid exactly twice: one fill, the second transfer given back to its sender, nothing left', async () => {
    const { id, address, amount, recipient } = await addressQuote();
    const payer = a.accounts.relayer;
    await clients.send(a.chainId, a.accounts.user.privateKey, address, undefined, amount);
    await clients.send(a.chainId, payer.privateKey, address, undefined, amount);
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success', 30_000);
    await waitFor(
      async () =>
        (await journalOf(db, id)).length === 3 &&
        (await journalOf(db, id)).every((entry) => entry.state === 'mined'),
      'sweep, give-back and fill settled',
      30_000,
    );
    expect((await journalOf(db, id)).map((entry) => entry.purpose).sort()).toEqual([
      'fill',
      'give-back',
      'sweep',
    ]);
    expect(await eventTypesOf(db, id)).toContain('DepositAddressTransferRefused');
    const givenBack = await db.query<{ data: string }>(
      `SELECT data FROM solver_transactions WHERE request_id = $1 AND purpose = 'give-back'`,
      [id.toLowerCase()],
    );
    // giveBack(…, to = the second transfer's sender (no refundTo), amount = all of it)
    expect(givenBack.rows[0].data.toLowerCase()).toContain(payer.address.slice(2).toLowerCase());
    expect(await clients.balanceOf(a.chainId, ETH, address)).toBe(0n);
    expect(await clients.balanceOf(b.chainId, ETH, recipient)).toBeGreaterThan(0n);
  }, 60_000);

  // Last: it moves chain a's clock past the quotes' expiry.
  it('a direct deposit after the quote expired does not ride on a deposit-address transfer the user recovered; a sweep after expiry still fills', async () => {
    // Attack: pay the address before expiry (taken), pull the funds back with recover() before the sweep, then
    // deposit straight into the depository whenever the stale quote suits: the request counted that deposit as paid
    // at the recovered transfer's time and filled it.
    await app.close();
    app = await startTestApp(settlementEnv(a, b, { SOLVER_RUN: 'false' }), [], undefined, database);
    db = app.app.get<Database>(DATABASE);
    const recovered = await addressQuote();
    const honest = await addressQuote();
    for (const { id, address, amount } of [recovered, honest]) {
      await clients.send(a.chainId, a.accounts.user.privateKey, address, undefined, amount);
      await waitFor(
        async () => (await eventTypesOf(db, id)).includes('DepositAddressFunded'),
        'the transfer taken',
      );
    }
    // The recovery address (the user: no refundTo) pulls the first one back before any sweep.
    const pulled = await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      a.deployment.depositAddressFactory,
      encodeFunctionData({
        abi: depositAddressFactoryAbi,
        functionName: 'recover',
        args: [recovered.id, 0],
      }),
    );
    expect(pulled.status).toBe('success');
    expect(await clients.balanceOf(a.chainId, ETH, recovered.address)).toBe(0n);
    await a.request('evm_increaseTime', [700]);
    await a.request('evm_mine', []);
    await depositNativeFor(clients, a, recovered.id, recovered.amount);
    await app.close();
    app = await startTestApp(settlementEnv(a, b), [], undefined, database);
    db = app.app.get<Database>(DATABASE);
    // The honest transfer's sweep mines after the quote expired: still filled (paid at the transfer's time).
    await waitFor(async () => (await requestStatus(app, honest.id)).status === 'success', 'success', 30_000);
    expect(await clients.balanceOf(b.chainId, ETH, honest.recipient)).toBeGreaterThan(0n);
    // The late direct deposit is judged by its own time: not filled, refunded.
    await waitFor(
      async () => (await eventTypesOf(db, recovered.id)).includes('FillFailed'),
      'the late deposit refused',
      30_000,
    );
    const failed = await db.query<{ reason: string }>(
      `SELECT data->>'failReason' AS reason FROM events WHERE stream_id = $1 AND event_type = 'FillFailed'`,
      [`request-${recovered.id.toLowerCase()}`],
    );
    expect(failed.rows).toEqual([{ reason: 'DEPOSIT_AFTER_EXPIRY' }]);
    expect(await eventTypesOf(db, recovered.id)).not.toContain('FillSubmitted');
    expect(await clients.balanceOf(b.chainId, ETH, recovered.recipient)).toBe(0n);
  }, 90_000);
});
