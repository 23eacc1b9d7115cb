import { CommandBus } from '@nestjs/cqrs';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { assertRpcChainIds } from '../../../src/chains/assert-rpc-chain-ids.js';
import type { ChainInfo } from '../../../src/chains/chain.js';
import { ReadClients } from '../../../src/chains/read-clients.js';
import { ChainWatcher } from '../../../src/chains/watcher/chain-watcher.js';
import { systemClock } from '../../../src/common/clock.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { EvmAttestor } from '../../../src/oracle/chains/evm-attestor.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, postJson } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';

const ETH = '0x0000000000000000000000000000000000000000';

interface Quote {
  steps: { items: { data: { to: Address; data: Hex; value: string } }[] }[];
  protocol: { v2: { orderId: Hex } };
}

/**
 * An RPC URL configured for one chain that serves another (a copy-paste in a deploy): chain 31337's RPC pointed at
 * chain 31338's node. The depository has the same address on both devnets, so a deposit made on 31338 with the
 * calldata of a 31337 quote has every shape of a 31337 deposit; only the chain id tells them apart.
 */
describe('an RPC that serves another chain than the one configured', () => {
  let a: Devnet;
  let b: Devnet;
  let app: TestApp;
  let db: Database;
  let clients: ChainClients;

  /** Chain 31337 as configured, but read through chain 31338's node. */
  const misconfigured = (): ChainInfo => ({ ...app.config.chains.chain(a.chainId), rpcUrl: b.rpcUrl });

  /** The demo user's quote body of a native ETH bridge 31337 → 31338 of 0.02 ETH. */
  const quoteBody = () => ({
    user: privateKeyToAccount(a.accounts.user.privateKey).address,
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: ETH,
    destinationCurrency: ETH,
    amount: '20000000000000000',
    tradeType: 'EXACT_INPUT',
  });

  /** A quote from 31337 to 31338, its deposit then made on 31338 (where the depositor's funds are cheap). */
  const depositOnTheWrongChain = async (): Promise<{ orderId: Hex; txHash: Hex }> => {
    const { code, body } = await postJson(app, '/quote/v2', quoteBody());
    expect(code).toBe(200);
    const quote = body as Quote;
    const deposit = quote.steps[0].items[0].data;
    const receipt = await clients.send(
      b.chainId,
      b.accounts.user.privateKey,
      deposit.to,
      deposit.data,
      BigInt(deposit.value),
    );
    expect(receipt.status).toBe('success');
    return { orderId: quote.protocol.v2.orderId, txHash: receipt.transactionHash };
  };

  const eventsOf = async (requestId: string) =>
    (
      await db.query<{ event_type: string; data: { chainId?: number; txHash?: string } }>(
        'SELECT event_type, data FROM events WHERE stream_id = $1 ORDER BY stream_revision',
        [`request-${requestId.toLowerCase()}`],
      )
    ).rows;

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    // The app is configured correctly and runs no watcher: the misconfigured watcher below is driven by hand.
    app = await startTestApp({ DEVNET_A_RPC_URL: a.rpcUrl, DEVNET_B_RPC_URL: b.rpcUrl });
    db = app.app.get(DATABASE);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("the watcher never credits a deposit made on the chain its RPC serves as the configured chain's deposit", async () => {
    const chain = misconfigured();
    const sut = new ChainWatcher(db, [chain], app.app.get(CommandBus), systemClock, {
      pollIntervalMs: 50,
      maxBlockRange: 100,
    });
    // The first round starts the chain's cursor at its head; the deposit comes after it.
    const first = await sut.poll(chain).catch((error: unknown) => error);
    const { orderId, txHash } = await depositOnTheWrongChain();
    const second = await sut.poll(chain).catch((error: unknown) => error);

    const credited = (await eventsOf(orderId)).filter((event) => event.data.txHash === txHash);
    expect(credited).toEqual([]);
    expect(first).toBeInstanceOf(Error);
    expect(second).toBeInstanceOf(Error);
    expect(String((second as Error).message)).toMatch(/serves chain 31338, not chain 31337/);
    const cursors = await db.query('SELECT 1 FROM chain_cursors WHERE chain_id = $1', [a.chainId]);
    expect(cursors.rows).toEqual([]);
  });

  it("the oracle never attests a deposit made on the chain its RPC serves as the configured chain's", async () => {
    const { txHash } = await depositOnTheWrongChain();
    const sut = new EvmAttestor(new ReadClients(5_000));

    const answer = await sut.deposit(misconfigured(), { transactionId: txHash }).then(
      (result) => ({ attested: result }),
      (error: { errorCode?: string; errorData?: unknown }) => ({
        refused: error.errorCode,
        errorData: error.errorData,
      }),
    );
    expect(answer).toEqual({
      refused: 'CHAIN_RPC_UNAVAILABLE',
      errorData: { chainId: a.chainId, reason: 'wrong-chain', servedChainId: b.chainId },
    });
  });

  describe("configured so (DEVNET_A_RPC_URL holds chain 31338's URL), with the watcher running", () => {
    let wrong: TestApp;

    beforeAll(async () => {
      wrong = await startTestApp({
        DEVNET_A_RPC_URL: b.rpcUrl,
        DEVNET_B_RPC_URL: b.rpcUrl,
        CHAIN_WATCHER_RUN: 'true',
        CHAIN_POLL_INTERVAL_MS: '50',
      });
    }, 60_000);
    afterAll(async () => {
      await wrong?.close();
    });

    it('refuses quotes from the chain with CHAIN_RPC_UNAVAILABLE wrong-chain, in every environment', async () => {
      const { code, body } = await postJson(wrong, '/quote/v2', quoteBody());
      expect(code).toBe(400);
      expect(body).toMatchObject({
        errorCode: 'CHAIN_RPC_UNAVAILABLE',
        errorData: { chainId: a.chainId, reason: 'wrong-chain' },
      });
    });

    it("watches the other chain but never moves the misconfigured chain's cursor; /health and /metrics say why", async () => {
      const db = wrong.app.get<Database>(DATABASE);
      const cursorOf = async (chainId: number) =>
        (await db.query('SELECT seen_block FROM chain_cursors WHERE chain_id = $1', [chainId])).rows;
      for (let round = 0; round < 100 && (await cursorOf(b.chainId)).length === 0; round += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await cursorOf(b.chainId)).toHaveLength(1);
      expect(await cursorOf(a.chainId)).toEqual([]);

      const { HealthService } = await import('../../../src/health/health.service.js');
      await wrong.app.get(HealthService).readNow();
      const health = await wrong.http.inject({ method: 'GET', url: '/health' });
      // Reported, not unready: the other chains, quotes on them, status and history keep being served.
      expect(health.statusCode).toBe(200);
      const chains = health.json().checks.chains;
      expect(chains).toMatchObject({
        status: 'down',
        chains: {
          [a.chainId]: { status: 'down', reason: 'wrong-chain', servedChainId: b.chainId },
          [b.chainId]: { status: 'up' },
        },
      });
      expect(chains.error).toMatch(/^chain 31337's RPC \(\w+\) serves chain 31338/);
      expect(JSON.stringify(health.json())).not.toContain(b.rpcUrl);

      const metrics = (await wrong.http.inject({ method: 'GET', url: '/metrics' })).body;
      expect(metrics).toMatch(/^ferry_rpc_chain_mismatch\{chain="31337"\} 1$/m);
      expect(metrics).toMatch(/^ferry_rpc_chain_mismatch\{chain="31338"\} 0$/m);
    });

    it('stops production start-up, naming the variable and not the URL', async () => {
      const refused = await assertRpcChainIds(wrong.config.chains.all()).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error).message).toMatch(
        /^Invalid configuration: \w+ points at a node of chain 31338, not chain 31337/,
      );
      expect((refused as Error).message).not.toContain(b.rpcUrl);
      await expect(assertRpcChainIds(app.config.chains.all())).resolves.toBeUndefined();
    });
  });
});
