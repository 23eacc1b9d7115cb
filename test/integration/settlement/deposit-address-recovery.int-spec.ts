import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { depositAddressFactoryAbi } from '../../../src/chains/abi/deposit-address-factory.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import { evolveRequestRecord } from '../../../projections/requests/request-record.js';
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
} from './settlement-support.js';

/**
 * The recovery address on real chains, played against Ferry: it pulls funds Ferry has not swept, and racing a sweep
 * it cannot make Ferry pay twice (a fill only follows the depository event a sweep emits, and a sweep of recovered
 * funds reverts at gas estimation, so nothing is journaled or sent).
 */
describe('deposit-address recovery on local chains', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  const apps: TestApp[] = [];
  const recoveryKey = `0x${'c9'.repeat(32)}` as Hex;
  const recovery = privateKeyToAccount(recoveryKey).address;
  let seed = 0x60;

  const start = async (env: Record<string, string> = {}) => {
    const app = await startTestApp(settlementEnv(a, b, env), [], undefined, database);
    apps.push(app);
    return app;
  };
  const quoteOn = async (app: TestApp) => {
    const recipient = freshRecipient(seed++);
    const { code, body } = await postJson(app, '/quote/v2', {
      ...ethQuoteBody(a, b, a.accounts.user.address, recipient),
      useDepositAddress: true,
      recoveryAddress: recovery,
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
  const recover = (id: Hex) =>
    clients.send(
      a.chainId,
      recoveryKey,
      a.deployment.depositAddressFactory,
      encodeFunctionData({ abi: depositAddressFactoryAbi, functionName: 'recover', args: [id, 0] }),
    );
  const balance = (chainId: number, owner: Address) => clients.balanceOf(chainId, ETH, owner);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    database = await createTestDatabase('ferry_deposit_recovery');
    await clients.send(a.chainId, a.accounts.user.privateKey, recovery, undefined, parseEther('1'));
  }, 120_000);
  afterEach(async () => {
    while (apps.length > 0) await apps.pop()!.close();
  });
  afterAll(async () => {
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('a recovery racing the sweep: the recovery gets the funds, the sweep is never sent, nothing is filled', async () => {
    // The watcher records the transfer, but no solver runs yet: the sweep is due when the recovery strikes.
    const watcherOnly = await start({ SOLVER_RUN: 'false' });
    const db = watcherOnly.app.get<Database>(DATABASE);
    const { id, address, amount, recipient } = await quoteOn(watcherOnly);
    await clients.send(a.chainId, a.accounts.user.privateKey, address, undefined, amount);
    await waitFor(
      async () => (await eventTypesOf(db, id)).includes('DepositAddressFunded'),
      'the transfer taken',
    );
    const before = await balance(a.chainId, recovery);
    const recovered = await recover(id);
    expect(recovered.status).toBe('success');
    expect((await balance(a.chainId, recovery)) - before).toBe(
      amount - recovered.gasUsed * recovered.effectiveGasPrice,
    );
    await watcherOnly.close();
    apps.pop();

    const withSolver = await start();
    const solverDb = withSolver.app.get<Database>(DATABASE);
    await waitFor(
      async () =>
        (
          await solverDb.query<{ attempts: number; last_error: string | null }>(
            `SELECT attempts, last_error FROM solver_jobs WHERE request_id = $1 AND kind = 'sweep'`,
            [id.toLowerCase()],
          )
        ).rows.find((row) => row.attempts >= 2 && /would revert/.test(row.last_error ?? '')),
      'the sweep refused at gas estimation, twice',
      20_000,
    );
    expect(await journalOf(solverDb, id)).toEqual([]);
    expect(await eventTypesOf(solverDb, id)).toEqual(['RequestQuoted', 'DepositAddressFunded']);
    expect((await requestStatus(withSolver, id)).status).toBe('waiting');
    expect(await balance(b.chainId, recipient)).toBe(0n);
  }, 60_000);

  it('value sent from inside a contract call (a smart-wallet batch) is found by balance, swept and filled; no depositor or hash is made up', async () => {
    const app = await start();
    const db = app.app.get<Database>(DATABASE);
    const { id, address, amount, recipient } = await quoteOn(app);
    const receipt = await clients.send(
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
    expect(receipt.status).toBe('success');
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success', 30_000);
    expect(await balance(b.chainId, recipient)).toBeGreaterThan(0n);
    expect(await balance(a.chainId, address)).toBe(0n);
    const funded = await db.query<{ observed_by: string; depositor: string }>(
      `SELECT data->>'observedBy' AS observed_by, data->>'depositor' AS depositor FROM events
        WHERE stream_id = $1 AND event_type = 'DepositAddressFunded'`,
      [`request-${id.toLowerCase()}`],
    );
    expect(funded.rows).toEqual([
      { observed_by: 'balance', depositor: '0x0000000000000000000000000000000000000000' },
    ]);
    // The v3 record as the projections fold it from the request's events.
    const events = await app.app.get<EventStore>(EVENT_STORE).readStream(`request-${id.toLowerCase()}`);
    const record = events.reduce(evolveRequestRecord, null)!.v3;
    expect(record.depositAddress).toMatchObject({ address, depositor: null, depositTxHash: null });
  }, 60_000);

  it('funds Ferry never swept (no watcher running here) are pulled by the recovery address', async () => {
    // Without a watcher nothing is recorded: the recovery address is the way back for anything Ferry did not sweep.
    const app = await start({ CHAIN_WATCHER_RUN: 'false', SOLVER_RUN: 'false' });
    const { id, address, amount } = await quoteOn(app);
    await clients.send(
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
    const before = await balance(a.chainId, recovery);
    const recovered = await recover(id);
    expect((await balance(a.chainId, recovery)) - before).toBe(
      amount - recovered.gasUsed * recovered.effectiveGasPrice,
    );
    expect(await balance(a.chainId, address)).toBe(0n);
  }, 60_000);

  it('two instances watching and solving on one database: one transfer is recorded, swept and filled once', async () => {
    const first = await start();
    await start();
    const db = first.app.get<Database>(DATABASE);
    const { id, address, amount, recipient } = await quoteOn(first);
    await clients.send(a.chainId, a.accounts.user.privateKey, address, undefined, amount);
    await waitFor(async () => (await requestStatus(first, id)).status === 'success', 'success', 30_000);
    await waitFor(
      async () => (await journalOf(db, id)).every((entry) => entry.state === 'mined'),
      'every entry settled',
    );
    expect((await journalOf(db, id)).map((entry) => [entry.purpose, entry.state])).toEqual([
      ['sweep', 'mined'],
      ['fill', 'mined'],
    ]);
    expect((await eventTypesOf(db, id)).filter((type) => type === 'DepositAddressFunded')).toHaveLength(1);
    expect(await balance(a.chainId, address)).toBe(0n);
    expect(await balance(b.chainId, recipient)).toBeGreaterThan(0n);
  }, 60_000);

  it('POST /transactions/index records a transfer into a deposit address at once (no watcher running)', async () => {
    const app = await start({ CHAIN_WATCHER_RUN: 'false' });
    const db = app.app.get<Database>(DATABASE);
    const { id, address, amount, recipient } = await quoteOn(app);
    const transfer = await clients.send(a.chainId, a.accounts.user.privateKey, address, undefined, amount);
    const indexed = await postJson(app, '/transactions/index', {
      chainId: a.chainId,
      txHash: transfer.transactionHash,
    });
    expect(indexed).toMatchObject({ code: 200, body: { deposits: 1, final: true } });
    expect(await eventTypesOf(db, id)).toEqual(['RequestQuoted', 'DepositAddressFunded']);
    const sweep = await waitFor(
      async () =>
        (await journalOf(db, id)).find((entry) => entry.purpose === 'sweep' && entry.state === 'mined'),
      'the sweep mined',
    );
    // The sweep's depository deposit, indexed the same way, is confirmed and filled.
    await postJson(app, '/transactions/index', { chainId: a.chainId, txHash: sweep.tx_hash });
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success');
    expect(await balance(b.chainId, recipient)).toBeGreaterThan(0n);
  }, 60_000);
});
