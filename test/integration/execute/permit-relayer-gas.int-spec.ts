import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ManualClock } from '../../../src/common/clock.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, settlementEnv, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { RpcProxy } from '../../support/rpc-proxy.js';
import { depositErc20For, eventTypesOf, journalOf } from '../settlement/settlement-support.js';
import { permitUser, quotedPermit } from '../../support/permits.js';

/**
 * Attack: make Ferry's relayer pay for transactions that revert. A `usePermit` deposit costs its user nothing, the
 * relayer pays its gas, so a signature that simulates fine now but reverts once mined is free for the user and paid by
 * Ferry; repeated over many quotes it drains the relayer. Real devnets, the real relayer and journal, real PostgreSQL.
 * Chain a's node here estimates gas at the latest block (as many providers do): a transaction of ours still in the
 * mempool is invisible to the simulation.
 */
describe('permits the relayer would pay to revert (attack)', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let proxy: RpcProxy;
  const apps: TestApp[] = [];
  const databases: TestDatabase[] = [];
  let seed = 0xe1;
  /** JSON-RPC methods chain a's RPC fails (answers an error without forwarding) while set. */
  const failing = new Set<string>();

  const start = async (
    clock?: ManualClock,
    env: Record<string, string> = {},
  ): Promise<{ app: TestApp; db: Database }> => {
    const database = await createTestDatabase('ferry_permit_gas');
    databases.push(database);
    const app = await startTestApp(
      settlementEnv(a, b, {
        DEVNET_A_RPC_URL: await proxy.start(),
        RELAYER_PRIVATE_KEY: a.accounts.relayer.privateKey,
        ...env,
      }),
      [],
      clock,
      database,
    );
    apps.push(app);
    return { app, db: app.app.get<Database>(DATABASE) };
  };
  /** A fresh user holding `usdc` of chain a's USDC and no ether: it can only deposit through a permit. */
  const fundedUser = (usdc: bigint) => permitUser(clients, a, seed++, usdc);
  const signedPermit = (app: TestApp, user: ReturnType<typeof privateKeyToAccount>, amount: bigint) =>
    quotedPermit(app, a, b, user, amount);
  const refusedUntouched = async (db: Database, id: Hex) => {
    expect(await journalOf(db, id)).toEqual([]);
    expect(await eventTypesOf(db, id)).toEqual(['RequestQuoted']);
  };

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
  }, 120_000);
  beforeEach(() => {
    // A node that simulates at the latest block, whatever block the caller asks for.
    failing.clear();
    proxy = new RpcProxy(a.rpcUrl, (method, params) => {
      if (failing.has(method)) return { kind: 'error', message: 'upstream connect error' };
      return method === 'eth_estimateGas' ? { kind: 'forward-as', params: [params[0], 'latest'] } : null;
    });
  });
  afterEach(async () => {
    await a.setAutomine(true);
    while (apps.length > 0) await apps.pop()!.close();
    await proxy.stop();
  });
  afterAll(async () => {
    for (const database of databases) await database.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('refuses a permit that the user’s permits already in flight leave unfunded: the relayer never sends it', async () => {
    const { app, db } = await start();
    // 3 USDC, and two signed permits of 2 USDC each: each simulates fine alone, together they cannot both mine.
    const user = await fundedUser(3_000_000n);
    const first = await signedPermit(app, user, 2_000_000n);
    const second = await signedPermit(app, user, 2_000_000n);
    await a.setAutomine(false);
    expect((await first.execute()).code).toBe(200);
    const refused = await second.execute();
    expect(refused).toMatchObject({ code: 409, body: { errorCode: 'CONFLICT' } });
    expect((refused.body as { message: string }).message).toMatch(/in flight/);
    await refusedUntouched(db, second.id);

    // Once the first has mined, the balance it left is what counts: 1 USDC does not fund 2 either.
    await a.mine(1);
    await a.setAutomine(true);
    expect((await second.execute()).code).toBe(409);
    expect(await clients.balanceOf(a.chainId, a.deployment.usdc, user.address)).toBe(1_000_000n);
  });

  it('lets permits through while the user’s balance funds all of them at once', async () => {
    const { app, db } = await start();
    const user = await fundedUser(4_000_000n);
    const first = await signedPermit(app, user, 2_000_000n);
    const second = await signedPermit(app, user, 2_000_000n);
    await a.setAutomine(false);
    expect((await first.execute()).code).toBe(200);
    expect((await second.execute()).code).toBe(200);
    await a.mine(1);
    for (const { id } of [first, second]) {
      expect((await journalOf(db, id)).map((entry) => entry.purpose)).toEqual(['permit']);
    }
    expect(await clients.balanceOf(a.chainId, a.deployment.usdc, user.address)).toBe(0n);
  });

  it('refuses a permit for a request its user already deposited for directly: the relayer would pay a second deposit, and Ferry its return', async () => {
    // Deposits are final five blocks deep here: the direct deposit stays seen, not final, while the permit is posted.
    const { app, db } = await start(undefined, { DEVNET_FINALITY_BLOCKS: '5' });
    const user = privateKeyToAccount(a.accounts.user.privateKey);
    const permit = await signedPermit(app, user, 2_000_000n);
    // The user deposits with depositErc20 (anyone may, for any id); the deposit is seen, not yet final.
    await depositErc20For(clients, a, permit.id, a.deployment.usdc, 2_000_000n);
    await waitFor(
      async () => (await eventTypesOf(db, permit.id)).includes('DepositDetected'),
      'the direct deposit to be seen',
    );
    const refused = await permit.execute();
    expect(refused).toMatchObject({ code: 409, body: { errorCode: 'CONFLICT' } });
    expect(await journalOf(db, permit.id)).toEqual([]);
    expect(await eventTypesOf(db, permit.id)).not.toContain('DepositSubmitted');
  });

  it('refuses a permit whose user deposits directly while the relayer prepares it (seen, not final): no nonce taken, no filler paid', async () => {
    // The relayer's gas estimate is held until the direct deposit is seen: the request had nothing after its quote
    // when the permit was posted, and has a deposit once the relayer has estimated its own. A permit refused after
    // the relayer took a nonce costs Ferry a filler transaction (21k gas) for that nonce: the request is read again
    // before the nonce is taken, so this one costs nothing.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let estimating!: () => void;
    const estimated = new Promise<void>((resolve) => (estimating = resolve));
    const relayer = a.accounts.relayer.address.toLowerCase();
    proxy = new RpcProxy(a.rpcUrl, (method, params) => {
      if (method !== 'eth_estimateGas') return null;
      if ((params[0] as { from?: string }).from?.toLowerCase() !== relayer) {
        return { kind: 'forward-as', params: [params[0], 'latest'] };
      }
      estimating();
      return { kind: 'hold', until: held };
    });
    const { app, db } = await start(undefined, { DEVNET_FINALITY_BLOCKS: '5' });
    const user = privateKeyToAccount(a.accounts.user.privateKey);
    const permit = await signedPermit(app, user, 2_000_000n);
    const before = await clients.balanceOf(a.chainId, a.deployment.usdc, user.address);
    const nonceBefore = await clients
      .reader(a.chainId)
      .getTransactionCount({ address: a.accounts.relayer.address });

    const answer = permit.execute();
    await estimated;
    await depositErc20For(clients, a, permit.id, a.deployment.usdc, 2_000_000n);
    await waitFor(
      async () => (await eventTypesOf(db, permit.id)).includes('DepositDetected'),
      'the direct deposit to be seen',
    );
    release();

    expect(await answer).toMatchObject({ code: 409, body: { errorCode: 'CONFLICT' } });
    expect(await eventTypesOf(db, permit.id)).not.toContain('DepositSubmitted');
    // Never journaled: no nonce reserved, so no filler; no second deposit, no return.
    expect(await journalOf(db, permit.id)).toEqual([]);
    await a.mine(1);
    expect(await clients.reader(a.chainId).getTransactionCount({ address: a.accounts.relayer.address })).toBe(
      nonceBefore,
    );
    expect(await clients.balanceOf(a.chainId, a.deployment.usdc, user.address)).toBe(before - 2_000_000n);
  });

  it('answers a permit posted again after it was submitted with the same transaction, sending nothing more', async () => {
    const { app, db } = await start();
    const user = await fundedUser(2_000_000n);
    const permit = await signedPermit(app, user, 2_000_000n);
    const first = await permit.execute();
    expect(first.code).toBe(200);
    await waitFor(
      async () => (await eventTypesOf(db, permit.id)).includes('DepositConfirmed'),
      'the permit deposit to be confirmed',
    );
    const again = await permit.execute();
    expect(again).toEqual({ code: 200, body: first.body });
    const permits = (await journalOf(db, permit.id)).filter((entry) => entry.purpose === 'permit');
    expect(permits).toHaveLength(1);
  });

  it('refuses a permit posted in the last moments before it expires: it could mine after its validBefore and revert', async () => {
    const clock = new ManualClock(new Date());
    const { app, db } = await start(clock);
    const user = await fundedUser(2_000_000n);
    const permit = await signedPermit(app, user, 2_000_000n);
    // Five seconds before the authorization's validBefore: the simulation passes now, the next block may not.
    clock.set(new Date((permit.validBefore - 5) * 1000));
    const refused = await permit.execute();
    expect(refused).toMatchObject({ code: 409, body: { errorCode: 'CONFLICT' } });
    expect((refused.body as { message: string }).message).toMatch(/expires/);
    await refusedUntouched(db, permit.id);
  });

  it('answers CHAIN_RPC_UNAVAILABLE, not 500, when the origin RPC fails while the relayer estimates the deposit: nothing journaled, no event', async () => {
    const { app, db } = await start();
    const user = await fundedUser(2_000_000n);
    const permit = await signedPermit(app, user, 2_000_000n);
    failing.add('eth_estimateGas');
    const refused = await permit.execute();
    expect(refused).toMatchObject({
      code: 400,
      body: { errorCode: 'CHAIN_RPC_UNAVAILABLE', errorData: { chainId: a.chainId, reason: 'rpc-failed' } },
    });
    await refusedUntouched(db, permit.id);

    // Once the RPC answers again the same permit goes through.
    failing.clear();
    expect((await permit.execute()).code).toBe(200);
  });

  it('answers CHAIN_RPC_UNAVAILABLE, not 500, when the origin RPC fails while the user’s balance is read beside permits in flight', async () => {
    const { app, db } = await start();
    const user = await fundedUser(4_000_000n);
    const first = await signedPermit(app, user, 2_000_000n);
    const second = await signedPermit(app, user, 2_000_000n);
    await a.setAutomine(false);
    expect((await first.execute()).code).toBe(200);
    // The relayer's own reads (estimate, fees, nonce) answer; the balance read (eth_call) fails.
    failing.add('eth_call');
    const refused = await second.execute();
    expect(refused).toMatchObject({
      code: 400,
      body: { errorCode: 'CHAIN_RPC_UNAVAILABLE', errorData: { chainId: a.chainId, reason: 'rpc-failed' } },
    });
    await refusedUntouched(db, second.id);
  });
});
