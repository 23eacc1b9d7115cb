import type { Address, Hex } from 'viem';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { PAYMENT_GAS_CAP } from '../../../src/solver/transaction-journal.js';
import {
  deployGasBurner,
  depositErc20For,
  depositNativeFor,
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  type Quote,
  waitForRefundDone,
  waitForWatcherRound,
} from './settlement-support.js';

/**
 * Money going back to users, played by an attacker on two real local chains: returns that would cost the solver
 * more than they give back.
 */
/** Rounds of the gas burner below: a payment to it takes about 110,000 gas, under the journal's cap. */
const BURNER_ROUNDS = 3_400;

describe('refunds and returns under attack', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  const apps: TestApp[] = [];
  let seed = 0xd0;

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    database = await createTestDatabase('ferry_refund_attacks');
  }, 120_000);
  afterEach(async () => {
    while (apps.length > 0) await apps.pop()!.close();
  });
  afterAll(async () => {
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('dust deposited for an id no quote issued (1 wei each) is not returned: the solver spends no gas on it', async () => {
    const app = await startTestApp(settlementEnv(a, b), [], undefined, database);
    apps.push(app);
    const db = app.app.get<Database>(DATABASE);
    // Wait for the watcher's first round, so the deposits below are this database's to return.
    await waitForWatcherRound(db, a);
    const solverNonce = await clients
      .reader(a.chainId)
      .getTransactionCount({ address: a.accounts.solver.address });
    const dust: string[] = [];
    for (let i = 0; i < 3; i++) {
      const receipt = await depositNativeFor(clients, a, `0x${'d5'.repeat(31)}0${i}` as Hex, 1n);
      dust.push(receipt.transactionHash.toLowerCase());
    }
    const rowsOf = async () =>
      (
        await db.query<{ state: string; reason: string }>(
          'SELECT state, reason FROM unmatched_deposits WHERE tx_hash = ANY($1) ORDER BY tx_hash',
          [dust],
        )
      ).rows;
    // Each is kept (reason UNKNOWN_REQUEST) and settled without a transaction.
    await waitFor(
      async () => {
        const rows = await rowsOf();
        return rows.length === 3 && rows.every((row) => row.state !== 'pending' && row.state !== 'sent');
      },
      'the dust rows to be settled',
      20_000,
    );
    expect(await rowsOf()).toEqual(Array(3).fill({ state: 'dust', reason: 'UNKNOWN_REQUEST' }));
    const returns = await db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM solver_transactions WHERE purpose = 'return'`,
    );
    expect(returns.rows[0].n).toBe('0');
    expect(await clients.reader(a.chainId).getTransactionCount({ address: a.accounts.solver.address })).toBe(
      solverNonce,
    );
  });

  it.each<[string, (a: Devnet) => Address, string]>([
    ['1 wei of the quoted native currency', () => ETH, '20000000000000000'],
    ['1 unit of the quoted token (USDC)', (a) => a.deployment.usdc, '12000000'],
  ])(
    'a real quote paid with dust (%s) fails DEPOSIT_AMOUNT_TOO_LOW and is not refunded: the solver spends no gas on it',
    async (_, currencyOf, quoted) => {
      const app = await startTestApp(settlementEnv(a, b), [], undefined, database);
      apps.push(app);
      const db = app.app.get<Database>(DATABASE);
      const apiKey = (await app.app.get(ApiKeysService).create({ label: 'refund-dust' })).key;
      const currency = currencyOf(a);
      const { code, body } = await postJson(app, '/quote/v2', {
        user: a.accounts.user.address,
        recipient: freshRecipient(seed++),
        originChainId: a.chainId,
        destinationChainId: b.chainId,
        originCurrency: currency,
        destinationCurrency: currency === ETH ? ETH : b.deployment.usdc,
        amount: quoted,
        tradeType: 'EXACT_INPUT',
      });
      expect(code).toBe(200);
      const id = (body as Quote).protocol.v2.orderId;
      const solver = a.accounts.solver.address;
      const solverNonce = await clients.reader(a.chainId).getTransactionCount({ address: solver });
      const solverBalance = await clients.balanceOf(a.chainId, ETH, solver);
      const depositor = a.accounts.user.address;
      const before = await clients.balanceOf(a.chainId, currency, depositor);

      // Attack: pay the quote with one unit; the request fails short, and a refund would cost the solver a transfer.
      const receipt =
        currency === ETH
          ? await depositNativeFor(clients, a, id, 1n)
          : await depositErc20For(clients, a, id, currency, 1n);
      expect(receipt.status).toBe('success');
      await waitForRefundDone(db, id);

      expect(await journalOf(db, id)).toEqual([]);
      expect(await clients.reader(a.chainId).getTransactionCount({ address: solver })).toBe(solverNonce);
      expect(await clients.balanceOf(a.chainId, ETH, solver)).toBe(solverBalance);
      await waitForProjections(app);
      expect(await requestStatus(app, id)).toMatchObject({
        status: 'failure',
        failReason: 'DEPOSIT_AMOUNT_TOO_LOW',
        refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      });
      // The unit stays in the depository: the depositor is one unit down (and its gas, for a native deposit).
      const after = await clients.balanceOf(a.chainId, currency, depositor);
      if (currency === ETH) expect(after).toBeLessThan(before - 1n);
      else expect(after).toBe(before - 1n);
      const types = await eventTypesOf(db, id);
      expect(types.filter((type) => type.startsWith('Refund'))).toEqual(['RefundSkipped']);

      const response = await app.http.inject({
        method: 'GET',
        url: `/requests/v3?id=${id}`,
        headers: { 'x-api-key': apiKey },
      });
      const [record] = (response.json() as { requests: { status: string; data: Record<string, unknown> }[] })
        .requests;
      expect(record.status).toBe('failure');
      expect(record.data).toMatchObject({
        failReason: 'DEPOSIT_AMOUNT_TOO_LOW',
        refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      });
    },
  );
  /** A refund or return to the burner as the solver's node would estimate it (the order id appended). */
  const burnerGas = (burner: Address) =>
    clients.reader(a.chainId).estimateGas({
      account: a.accounts.solver.address,
      to: burner,
      value: 1n,
      data: `0x${'11'.repeat(32)}`,
    });

  it('weighs a refund at the gas its refundTo contract burns: one worth more than a transfer’s gas but less than that is not refunded, one worth more is', async () => {
    const app = await startTestApp(settlementEnv(a, b), [], undefined, database);
    apps.push(app);
    const db = app.app.get<Database>(DATABASE);
    const burner = await deployGasBurner(clients, a, BURNER_ROUNDS);
    const gas = await burnerGas(burner);
    // Far above a plain transfer's 30,000 gas, and under the journal's cap: the journal would send it.
    expect(gas).toBeGreaterThan(100_000n);
    expect((gas * 12n) / 10n).toBeLessThanOrEqual(PAYMENT_GAS_CAP);
    const quoted = async () => {
      const { code, body } = await postJson(app, '/quote/v2', {
        ...ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(seed++)),
        refundTo: burner,
      });
      expect(code).toBe(200);
      return (body as Quote).protocol.v2.orderId;
    };
    const [dust, worth] = [await quoted(), await quoted()];
    const solver = a.accounts.solver.address;
    const solverNonce = await clients.reader(a.chainId).getTransactionCount({ address: solver });
    const gasPrice = await clients.reader(a.chainId).getGasPrice();

    // Attack: short deposits worth 40,000 gas, above the fixed 30,000, below the ~110,000 their refund would burn.
    await depositNativeFor(clients, a, dust, gasPrice * 40_000n);
    // A deposit worth far more than its refund's gas is refunded, to the contract all the same.
    await depositNativeFor(clients, a, worth, gasPrice * 1_000_000n);
    for (const id of [dust, worth]) await waitForRefundDone(db, id);

    expect(await journalOf(db, dust)).toEqual([]);
    expect((await eventTypesOf(db, dust)).filter((type) => type.startsWith('Refund'))).toEqual([
      'RefundSkipped',
    ]);
    expect((await journalOf(db, worth)).map((entry) => [entry.purpose, entry.state])).toEqual([
      ['refund', 'mined'],
    ]);
    expect((await eventTypesOf(db, worth)).filter((type) => type.startsWith('Refund'))).toEqual([
      'RefundSubmitted',
      'RefundSucceeded',
    ]);
    expect(await clients.reader(a.chainId).getTransactionCount({ address: solver })).toBe(solverNonce + 1);
    expect(await clients.balanceOf(a.chainId, ETH, burner)).toBe(gasPrice * 1_000_000n);
  });

  it('weighs a return at the gas its depositor contract burns: one worth more than a transfer’s gas but less than that is kept as dust, one worth more is returned', async () => {
    const app = await startTestApp(settlementEnv(a, b), [], undefined, database);
    apps.push(app);
    const db = app.app.get<Database>(DATABASE);
    await waitForWatcherRound(db, a);
    const burner = await deployGasBurner(clients, a, BURNER_ROUNDS);
    expect(await burnerGas(burner)).toBeGreaterThan(100_000n);
    const solver = a.accounts.solver.address;
    const solverNonce = await clients.reader(a.chainId).getTransactionCount({ address: solver });
    const gasPrice = await clients.reader(a.chainId).getGasPrice();

    // Attack: deposits for ids no quote issued, naming the burner as depositor (the depository takes any address).
    const dust = await depositNativeFor(clients, a, `0x${'b5'.repeat(31)}01`, gasPrice * 40_000n, burner);
    const worth = await depositNativeFor(clients, a, `0x${'b5'.repeat(31)}02`, gasPrice * 1_000_000n, burner);
    const stateOf = async (tx: string) =>
      (
        await db.query<{ state: string }>('SELECT state FROM unmatched_deposits WHERE tx_hash = $1', [
          tx.toLowerCase(),
        ])
      ).rows[0]?.state;
    await waitFor(
      async () =>
        ['dust', 'done', 'failed'].includes((await stateOf(dust.transactionHash)) ?? '') &&
        ['dust', 'done', 'failed'].includes((await stateOf(worth.transactionHash)) ?? ''),
      'both returns to be settled',
      30_000,
    );

    expect(await stateOf(dust.transactionHash)).toBe('dust');
    expect(await stateOf(worth.transactionHash)).toBe('done');
    const returns = await db.query<{ request_id: string }>(
      `SELECT request_id FROM solver_transactions WHERE purpose = 'return' AND request_id LIKE '0xb5b5%'`,
    );
    expect(returns.rows).toEqual([{ request_id: `0x${'b5'.repeat(31)}02` }]);
    expect(await clients.reader(a.chainId).getTransactionCount({ address: solver })).toBe(solverNonce + 1);
    expect(await clients.balanceOf(a.chainId, ETH, burner)).toBe(gasPrice * 1_000_000n);
  });
});
