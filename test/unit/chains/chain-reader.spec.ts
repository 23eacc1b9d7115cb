import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainReader } from '../../../src/chains/chain-reader.js';
import { chain, currency, evmNative, SOLVER } from '../quotes/steps/fixtures.js';

const USER = '0x4444444444444444444444444444444444444444';
const TOKEN = '0x5555555555555555555555555555555555555555';

/** A JSON-RPC node on loopback: a head block, balances per block, and a log of the calls it answered. */
class FakeNode {
  head = 10;
  /** The chain it serves (eth_chainId, not logged in `calls`): 31337, the fixtures' chain. */
  chainId = 31337;
  failBlockNumber = false;
  failGasPrice = false;
  readonly calls: { method: string; block?: string }[] = [];
  /** Balance of a wallet at a block: the block number times a per-wallet factor, so values differ per block. */
  balanceAt = (wallet: string, block: number): bigint =>
    BigInt(block) * (wallet.toLowerCase() === SOLVER ? 1_000n : 1n);
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        const answer = (result: unknown) => response.end(JSON.stringify({ jsonrpc: '2.0', id, result }));
        const fail = () =>
          response.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'down' } }));
        if (method === 'eth_chainId') return answer(`0x${this.chainId.toString(16)}`);
        if (method === 'eth_blockNumber') {
          this.calls.push({ method });
          return this.failBlockNumber ? fail() : answer(`0x${this.head.toString(16)}`);
        }
        if (method === 'eth_getBalance') {
          const [wallet, block] = params as [string, string];
          this.calls.push({ method, block });
          return answer(`0x${this.balanceAt(wallet, Number(block)).toString(16)}`);
        }
        if (method === 'eth_gasPrice') {
          this.calls.push({ method });
          return this.failGasPrice ? fail() : answer('0x77359400');
        }
        if (method === 'eth_call') {
          const [call, block] = params as [{ data: string }, string];
          this.calls.push({ method, block });
          // balanceOf(address) / allowance(address,address): the first argument is the wallet.
          const wallet = `0x${call.data.slice(34, 74)}`;
          return answer(`0x${this.balanceAt(wallet, Number(block)).toString(16).padStart(64, '0')}`);
        }
        return fail();
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  count(method: string): number {
    return this.calls.filter((call) => call.method === method).length;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    this.server?.close();
  }
}

describe(`${ChainReader.name} balances at the head block`, () => {
  const node = new FakeNode();
  let devnet: ReturnType<typeof chain>;
  const reader = () => new ChainReader({ cacheMs: 10_000, timeoutMs: 2_000 });
  const token = currency({ address: TOKEN });

  beforeAll(async () => {
    devnet = chain({ rpcUrl: await node.start() });
  });
  afterAll(() => node.stop());
  beforeEach(() => {
    node.calls.length = 0;
    node.head = 10;
    node.failBlockNumber = false;
  });

  it('reads each wallet once per block, at that block, whatever the number of quotes asking', async () => {
    const sut = reader();
    const quotes = await Promise.all(
      Array.from({ length: 8 }, () =>
        Promise.all([sut.balance(devnet, evmNative, USER), sut.balance(devnet, evmNative, SOLVER)]),
      ),
    );
    for (const balances of quotes) expect(balances).toEqual([10n, 10_000n]);
    expect(node.count('eth_getBalance')).toBe(2);
    expect(node.calls.filter((call) => call.method === 'eth_getBalance').map((call) => call.block)).toEqual([
      '0xa',
      '0xa',
    ]);
    // A head read per quote at most: those that asked while one was in flight shared the next.
    expect(node.count('eth_blockNumber')).toBeLessThanOrEqual(2);
  });

  it('never answers with a balance older than the head block read for the quote', async () => {
    const sut = reader();
    expect(await sut.balance(devnet, evmNative, SOLVER)).toBe(10_000n);
    expect(await sut.balance(devnet, evmNative, SOLVER)).toBe(10_000n);
    node.head = 11; // the solver's balance moved with the block
    expect(await sut.balance(devnet, evmNative, SOLVER)).toBe(11_000n);
    expect(node.count('eth_getBalance')).toBe(2);
    expect(node.count('eth_blockNumber')).toBe(3);
  });

  it('reads ERC-20 balances and allowances at the head block too, once per block and key', async () => {
    const sut = reader();
    const [balance, again, allowance] = await Promise.all([
      sut.balance(devnet, token, USER),
      sut.balance(devnet, token, USER),
      sut.allowance(devnet, token, USER, devnet.depository),
    ]);
    expect([balance, again, allowance]).toEqual([10n, 10n, 10n]);
    expect(node.calls.filter((call) => call.method === 'eth_call').map((call) => call.block)).toEqual([
      '0xa',
      '0xa',
    ]);
    expect(await sut.allowance(devnet, evmNative, USER, devnet.depository)).toBeNull();
  });

  it('answers null (the chain cannot tell) when the head cannot be read', async () => {
    const sut = reader();
    node.failBlockNumber = true;
    expect(await sut.balance(devnet, evmNative, SOLVER)).toBeNull();
    expect(node.count('eth_getBalance')).toBe(0);
    node.failBlockNumber = false;
    expect(await sut.balance(devnet, evmNative, SOLVER)).toBe(10_000n);
  });

  it('reads nothing for a chain without an RPC', async () => {
    expect(await reader().balance(chain(), evmNative, SOLVER)).toBeNull();
    expect(node.calls).toHaveLength(0);
  });
});

describe(`${ChainReader.name} gas prices`, () => {
  const node = new FakeNode();
  let devnet: ReturnType<typeof chain>;

  beforeAll(async () => {
    devnet = chain({ rpcUrl: await node.start() });
  });
  afterAll(() => node.stop());
  beforeEach(() => {
    node.calls.length = 0;
    node.failGasPrice = false;
  });

  it("reads the chain's gas price, once per cache period", async () => {
    const sut = new ChainReader({ cacheMs: 10_000, timeoutMs: 2_000 });
    expect(await sut.gasPrice(devnet)).toEqual({ priceWei: 2_000_000_000n, source: 'rpc' });
    await sut.gasPrice(devnet);
    expect(node.count('eth_gasPrice')).toBe(1);
  });

  it('says why it answers the configured default: no RPC here, or the RPC failed', async () => {
    node.failGasPrice = true;
    const sut = new ChainReader({ cacheMs: 10_000, timeoutMs: 2_000 });
    const defaultPriceWei = BigInt(devnet.gas.defaultPriceWei);
    expect(await sut.gasPrice(devnet)).toEqual({
      priceWei: defaultPriceWei,
      source: 'default',
      unavailable: 'rpc-failed',
    });
    expect(await sut.gasPrice(chain())).toEqual({
      priceWei: defaultPriceWei,
      source: 'default',
      unavailable: 'not-configured',
    });
    // A chain whose gas is not read from an RPC answers its default without a reason.
    expect(await sut.gasPrice(chain({ vmType: 'svm' }))).toEqual({
      priceWei: defaultPriceWei,
      source: 'default',
    });
  });
});

describe(`${ChainReader.name} on an RPC that serves another chain`, () => {
  const node = new FakeNode();
  node.chainId = 31338;
  afterAll(() => node.stop());

  it('reads nothing through it: gas is the default with reason wrong-chain, balances are unknown', async () => {
    const devnet = chain({ rpcUrl: await node.start() });
    const sut = new ChainReader({ cacheMs: 10_000, timeoutMs: 2_000 });
    expect(await sut.gasPrice(devnet)).toEqual({
      priceWei: BigInt(devnet.gas.defaultPriceWei),
      source: 'default',
      unavailable: 'wrong-chain',
    });
    expect(await sut.balance(devnet, evmNative, SOLVER)).toBeNull();
    expect(node.calls).toEqual([]);
  });
});
