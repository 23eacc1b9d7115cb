import { CommandBus } from '@nestjs/cqrs';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
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

  /** A quote from 31337 to 31338, its deposit then made on 31338 (where the depositor's funds are cheap). */
  const depositOnTheWrongChain = async (): Promise<{ orderId: Hex; txHash: Hex }> => {
    const user = privateKeyToAccount(a.accounts.user.privateKey);
    const { code, body } = await postJson(app, '/quote/v2', {
      user: user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: ETH,
      destinationCurrency: ETH,
      amount: '20000000000000000',
      tradeType: 'EXACT_INPUT',
    });
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
});
