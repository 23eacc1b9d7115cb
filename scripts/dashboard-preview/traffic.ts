import { createServer, type Server } from 'node:http';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_ACCOUNTS } from '../devnet/deploy-devnet.js';

/**
 * Real traffic for the dashboard preview (docs/operations.md, "Dashboard"): against a running Ferry on the devnet, a
 * wallet's swaps (quote with an API key, approve, deposit, status until `success`) in both directions between 31337
 * and 31338, reads and refused quotes between them, and a loopback webhook receiver for the keys' endpoints:
 * `/ok` answers 204, `/flaky` answers 503 to every other delivery (so the outbox and the error outcomes show).
 *
 * Environment: FERRY_URL, FERRY_API_KEYS (comma-separated keys whose quotes carry them), DEVNET_A_RPC_URL,
 * DEVNET_B_RPC_URL, RECEIVER_PORT (default 4010), DURATION_SECONDS (default 600), SWAP_EVERY_SECONDS (default 15).
 */

interface Step {
  readonly id: string;
  readonly kind: string;
  readonly items: readonly {
    readonly data: {
      readonly to: Address;
      readonly data?: Hex;
      readonly value?: string;
      readonly chainId: number;
    };
    readonly check?: { readonly endpoint: string };
  }[];
}
interface Quote {
  readonly steps: readonly Step[];
  readonly protocol: { readonly v2: { readonly orderId: Hex } };
}
interface ChainSummary {
  readonly id: number;
  readonly erc20Currencies: readonly { readonly symbol: string; readonly address: Address }[];
}

const env = process.env;
const FERRY_URL = (env.FERRY_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
const KEYS = (env.FERRY_API_KEYS ?? '').split(',').filter(Boolean);
const RPC: Record<number, string> = {
  31337: env.DEVNET_A_RPC_URL || 'http://127.0.0.1:8545',
  31338: env.DEVNET_B_RPC_URL || 'http://127.0.0.1:8546',
};
const DURATION_MS = Number(env.DURATION_SECONDS || 600) * 1000;
const SWAP_EVERY_MS = Number(env.SWAP_EVERY_SECONDS || 15) * 1000;
const USER = DEVNET_ACCOUNTS.user;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (text: string) => process.stdout.write(`${new Date().toISOString()} ${text}\n`);

async function call<T>(method: string, path: string, body?: unknown, key?: string): Promise<[number, T]> {
  const headers: Record<string, string> = key ? { 'x-api-key': key } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${FERRY_URL}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  return [response.status, (text ? JSON.parse(text) : null) as T];
}

/** Answers the keys' webhook deliveries on loopback: `/ok` always, `/flaky` every other time. */
function startReceiver(port: number): Promise<Server> {
  let flaky = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const fail = request.url === '/flaky' && flaky++ % 2 === 0;
      response.writeHead(fail ? 503 : 204).end();
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

async function main(): Promise<void> {
  const receiver = await startReceiver(Number(env.RECEIVER_PORT || 4010));
  const [, { chains }] = await call<{ chains: ChainSummary[] }>('GET', '/chains');
  const usdc = new Map(
    chains.map((chain) => [chain.id, chain.erc20Currencies.find((c) => c.symbol === 'USDC')?.address]),
  );
  const account = privateKeyToAccount(USER.privateKey);
  const clients = new Map<number, { reader: PublicClient; wallet: WalletClient }>(
    [31337, 31338].map((chainId) => {
      const transport = http(RPC[chainId], { retryCount: 0 });
      return [
        chainId,
        {
          reader: createPublicClient({ transport, pollingInterval: 100 }) as PublicClient,
          wallet: createWalletClient({ transport }),
        },
      ];
    }),
  );
  const quoteBody = (origin: number, destination: number, amount: string) => ({
    user: USER.address,
    originChainId: origin,
    destinationChainId: destination,
    originCurrency: usdc.get(origin),
    destinationCurrency: usdc.get(destination),
    amount,
    tradeType: 'EXACT_INPUT',
  });
  const until = Date.now() + DURATION_MS;

  /** One swap as a wallet does it; returns its final status. */
  const swap = async (index: number): Promise<string> => {
    const [origin, destination] = index % 2 === 0 ? [31337, 31338] : [31338, 31337];
    const amount = String((10 + ((index * 7) % 50)) * 1_000_000);
    const [status, quote] = await call<Quote>(
      'POST',
      '/quote/v2',
      quoteBody(origin, destination, amount),
      KEYS.length ? KEYS[index % KEYS.length] : undefined,
    );
    if (status !== 200) return `quote answered ${status}`;
    let check = `/intents/status/v3?requestId=${quote.protocol.v2.orderId}`;
    for (const step of quote.steps) {
      for (const item of step.items) {
        const { reader, wallet } = clients.get(item.data.chainId)!;
        const hash = await wallet.sendTransaction({
          account,
          chain: null,
          to: item.data.to,
          data: item.data.data,
          value: BigInt(item.data.value ?? '0'),
        });
        await reader.waitForTransactionReceipt({ hash });
        if (item.check) check = item.check.endpoint;
      }
    }
    const deadline = Date.now() + 90_000;
    for (;;) {
      const [, state] = await call<{ status: string }>('GET', check);
      if (['success', 'failure', 'refund'].includes(state.status) || Date.now() > deadline)
        return state.status;
      await sleep(250);
    }
  };

  const swaps = (async () => {
    for (let index = 0; Date.now() < until; index++) {
      const started = Date.now();
      const outcome = await swap(index).catch((error: Error) => `error: ${error.message}`);
      log(`swap ${index} ${outcome} in ${Date.now() - started} ms`);
      await sleep(Math.max(0, SWAP_EVERY_MS - (Date.now() - started)));
    }
  })();

  // Reads and quotes a wallet asks without depositing, some of them refused (errorCodes on the quote panel).
  for (let tick = 0; Date.now() < until; tick++) {
    const requests: Promise<unknown>[] = [
      call('GET', '/chains'),
      call('POST', '/quote/v2', quoteBody(31337, 31338, String(100_000_000 + tick))),
      call('GET', '/health'),
    ];
    if (tick % 3 === 0) requests.push(call('POST', '/quote/v2', quoteBody(31338, 31337, '1')));
    if (tick % 5 === 0) requests.push(call('POST', '/quote/v2', quoteBody(31337, 31338, '5000000000000')));
    if (tick % 7 === 0)
      requests.push(call('POST', '/quote/v2', { ...quoteBody(31337, 31338, '5'), amount: 'x' }));
    if (tick % 4 === 0 && KEYS[0]) requests.push(call('GET', '/requests/v3?limit=20', undefined, KEYS[0]));
    await Promise.all(requests.map((request) => request.catch(() => undefined)));
    await sleep(1000);
  }
  await swaps;
  receiver.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
