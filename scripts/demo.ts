import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  formatUnits,
  type Hex,
  http,
  type PublicClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiKeysService } from '../src/api-keys/api-keys.service.js';
import { createApp } from '../src/bootstrap/create-app.js';
import { erc20Abi } from '../src/chains/abi/erc20.js';
import { ChainRuntime } from '../src/chains/chain-runtime.service.js';
import { loadChainRegistry } from '../src/chains/chain-registry.js';
import { loadAppConfig } from '../src/config/app-config.js';
import { DATABASE, type Database } from '../src/database/database.js';
import { DEVNET_ACCOUNTS } from './devnet/deploy-devnet.js';
import { DEVNET_CHAIN_IDS, startDevnets } from './devnet/devnets.js';
import { type LocalChain, repositoryRoot, rpc } from './devnet/local-chain.js';

/**
 * `npm run demo`: a cross-chain ERC-20 swap as a wallet does it, printed step by step (docs/demo.md). 25 USDC go from
 * the demo user (devnet account #2) on 31337 to USDC on 31338: quote, approve, deposit, status until `success`, the
 * balance on the destination, the request's v3 record.
 *
 * It uses a running `npm run devnet` when both chains answer with Ferry's contracts deployed, else starts two chains
 * of its own; it uses the Ferry API at `FERRY_URL` (default http://127.0.0.1:3000) when one answers, else starts
 * Ferry in-process (embedded PGlite in memory). Whatever it started, it stops. Exit code 0 on `success`, 1 otherwise.
 */

const AMOUNT = 25_000_000n; // 25 USDC (6 decimals)
const STATUS_TIMEOUT_MS = 60_000;
const STATUS_POLL_MS = 50;
const PROBE_TIMEOUT_MS = 1500;
const USER = DEVNET_ACCOUNTS.user;

interface StepItem {
  readonly data: {
    readonly to: Address;
    readonly data?: Hex;
    readonly value?: string;
    readonly chainId: number;
  };
  readonly check?: { readonly endpoint: string; readonly method: string };
}

interface Step {
  readonly id: string;
  readonly action: string;
  readonly description: string;
  readonly kind: string;
  readonly items: readonly StepItem[];
}

interface Amount {
  readonly currency: { readonly symbol: string; readonly decimals: number };
  readonly amount: string;
  readonly amountFormatted: string;
  readonly amountUsd: string;
}

interface Quote {
  readonly steps: readonly Step[];
  readonly fees: Readonly<Record<string, Amount | undefined>>;
  readonly details: {
    readonly currencyIn: Amount;
    readonly currencyOut: Amount;
    readonly rate: string;
    readonly timeEstimate: number;
    readonly totalImpact?: { readonly usd: string; readonly percent: string };
  };
  readonly protocol: { readonly v2: { readonly orderId: Hex } };
}

interface ChainSummary {
  readonly id: number;
  readonly name: string;
  readonly displayName: string;
  readonly vmType: string;
  readonly currency: { readonly symbol: string };
  readonly erc20Currencies: readonly { readonly symbol: string; readonly address: string }[];
  readonly protocol?: { readonly v2?: { readonly depository?: string } };
}

interface Status {
  readonly status: string;
  readonly failReason: string | null;
  readonly details: string | null;
  readonly inTxHashes: readonly string[];
  readonly txHashes: readonly string[];
}

/** The two chains the demo talks to, and how to let go of them. */
interface Chains {
  readonly rpcUrls: Readonly<Record<number, string>>;
  /** A note on where they come from. */
  readonly origin: string;
  /** True when the demo started them (and stops them). */
  readonly own: boolean;
  stop(): Promise<void>;
}

/** The Ferry API the demo talks to over HTTP. */
interface Ferry {
  readonly baseUrl: string;
  readonly origin: string;
  /** In-process only: the app, for `ApiKeysService`. */
  readonly app: NestFastifyApplication | null;
  stop(): Promise<void>;
}

const write = (text = ''): void => {
  process.stdout.write(`${text}\n`);
};
const heading = (index: number, text: string): void => {
  write();
  write(`[${index}/9] ${text}`);
};
const messageOf = (error: unknown): string =>
  error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);

/** Cleanups in reverse order of start; run once, on the way out or on Ctrl-C. */
const cleanups: (() => Promise<void>)[] = [];
let cleaning: Promise<void> | null = null;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        process.stderr.write(`cleanup failed: ${messageOf(error)}\n`);
      }
    }
  })();
  return cleaning;
}

class DemoFailure extends Error {}

async function main(): Promise<void> {
  const started = performance.now();
  write(
    `Ferry demo: 25 USDC from chain 31337 to USDC on chain 31338, as a wallet does it (user ${USER.address})`,
  );

  heading(1, 'Local chains');
  const chains = await useOrStartChains();
  cleanups.push(() => chains.stop());
  write(`  ${chains.origin}`);
  for (const chainId of DEVNET_CHAIN_IDS) write(`  chain ${chainId}  ${chains.rpcUrls[chainId]}`);

  heading(2, 'Ferry API');
  const ferry = await useOrStartFerry(chains);
  cleanups.push(() => ferry.stop());
  write(`  ${ferry.origin}`);
  write(`  ${ferry.baseUrl}`);

  const clients = new Map<number, { reader: PublicClient; wallet: WalletClient }>();
  for (const chainId of DEVNET_CHAIN_IDS) {
    const transport = http(chains.rpcUrls[chainId], { retryCount: 0 });
    clients.set(chainId, {
      reader: createPublicClient({ transport, pollingInterval: 50 }) as PublicClient,
      wallet: createWalletClient({ transport }),
    });
  }
  const api = apiClient(ferry.baseUrl);

  heading(3, 'GET /chains');
  const { chains: listed } = await api.get<{ chains: ChainSummary[] }>('/chains');
  write(`  ${listed.length} chains listed; the two devnets:`);
  const usdc = new Map<number, Address>();
  for (const chainId of DEVNET_CHAIN_IDS) {
    const chain = listed.find((candidate) => candidate.id === chainId);
    if (!chain) throw new DemoFailure(`GET /chains does not list chain ${chainId}`);
    const token = chain.erc20Currencies.find((currency) => currency.symbol === 'USDC');
    if (!token) throw new DemoFailure(`GET /chains lists no USDC on chain ${chainId}`);
    usdc.set(chainId, token.address as Address);
    write(
      `  ${chain.id}  ${chain.displayName} (${chain.name}, ${chain.vmType})  native ${chain.currency.symbol}, ` +
        `${chain.erc20Currencies.map((currency) => currency.symbol).join(', ')}; depository ` +
        `${chain.protocol?.v2?.depository ?? '?'}`,
    );
  }
  const [origin, destination] = DEVNET_CHAIN_IDS;
  const usdcIn = usdc.get(origin)!;
  const usdcOut = usdc.get(destination)!;

  heading(4, 'POST /quote/v2');
  const quoteRequest = {
    user: USER.address,
    originChainId: origin,
    destinationChainId: destination,
    originCurrency: usdcIn,
    destinationCurrency: usdcOut,
    amount: AMOUNT.toString(),
    tradeType: 'EXACT_INPUT',
  };
  write(`  ${JSON.stringify(quoteRequest)}`);
  const quote = await api.post<Quote>('/quote/v2', quoteRequest);
  const requestId = quote.protocol.v2.orderId;
  const { details } = quote;
  write(`  request id  ${requestId}`);
  write(`  you pay     ${amountText(details.currencyIn)}`);
  write(`  you get     ${amountText(details.currencyOut)} (rate ${details.rate})`);
  if (details.totalImpact) {
    write(`  impact      ${details.totalImpact.usd} USD (${details.totalImpact.percent} %)`);
  }
  write(`  estimate    ${details.timeEstimate} s`);
  write('  fees:');
  for (const [name, fee] of Object.entries(quote.fees)) {
    if (fee) write(`    ${name.padEnd(15)} ${amountText(fee)}`);
  }
  write('  steps:');
  quote.steps.forEach((step, index) => {
    write(`    ${index + 1}. ${step.id} (${step.kind}): ${step.action}: ${step.description}`);
    for (const item of step.items) {
      write(
        `       chain ${item.data.chainId}, to ${item.data.to}, value ${item.data.value ?? '0'}, ` +
          `${((item.data.data ?? '0x').length - 2) / 2} bytes of calldata`,
      );
    }
  });

  heading(5, `USDC balance on chain ${destination} before`);
  const balanceOut = () =>
    clients.get(destination)!.reader.readContract({
      address: usdcOut,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [USER.address],
    });
  const before = await balanceOut();
  write(`  ${formatUnits(before, 6)} USDC`);

  heading(6, 'Sending the transaction steps from the user’s key (viem)');
  const account = privateKeyToAccount(USER.privateKey);
  let depositSentAt = performance.now();
  let checkEndpoint = `/intents/status/v3?requestId=${requestId}`;
  for (const step of quote.steps) {
    if (step.kind !== 'transaction') {
      throw new DemoFailure(`step ${step.id} is a ${step.kind} step; this demo sends transactions only`);
    }
    for (const item of step.items) {
      const { reader, wallet } = clients.get(item.data.chainId) ?? {};
      if (!reader || !wallet)
        throw new DemoFailure(`step ${step.id} is on unknown chain ${item.data.chainId}`);
      const sentAt = performance.now();
      const hash = await wallet.sendTransaction({
        account,
        chain: null,
        to: item.data.to,
        data: item.data.data,
        value: BigInt(item.data.value ?? '0'),
      });
      if (step.id === 'deposit') depositSentAt = sentAt;
      write(`  ${step.id.padEnd(8)} tx ${hash} sent on chain ${item.data.chainId}`);
      const receipt = await reader.waitForTransactionReceipt({ hash });
      write(
        `           mined in block ${receipt.blockNumber} (${receipt.status}, gas ${receipt.gasUsed}) ` +
          `after ${Math.round(performance.now() - sentAt)} ms`,
      );
      if (receipt.status !== 'success') throw new DemoFailure(`the ${step.id} transaction reverted`);
      if (item.check) checkEndpoint = item.check.endpoint;
    }
  }

  heading(7, `GET ${checkEndpoint.split('?')[0]} until success (ms after the deposit was sent)`);
  const final = await followStatus(api, checkEndpoint, depositSentAt);
  write(`  deposit  ${final.inTxHashes.join(', ')}`);
  write(`  fill     ${final.txHashes.join(', ')}`);

  heading(8, `USDC balance on chain ${destination} after`);
  const after = await balanceOut();
  write(
    `  ${formatUnits(after, 6)} USDC (+${formatUnits(after - before, 6)}; quoted ${amountText(details.currencyOut)})`,
  );
  if (after - before !== BigInt(details.currencyOut.amount)) {
    throw new DemoFailure(`received ${after - before}, quoted ${details.currencyOut.amount}`);
  }

  heading(9, `GET /requests/v3?user=${USER.address}`);
  const apiKey = await demoApiKey(ferry);
  if (apiKey) {
    const record = await waitForRecord(api, apiKey, requestId);
    write(`  the record, trimmed to its main fields (zero fees and the quoted route left out):`);
    write(indent(JSON.stringify(trimRecord(record), null, 2), '  '));
  }

  write();
  write(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
}

// ---------------------------------------------------------------------------------------------------------------
// Chains and Ferry: use what runs, else start our own

/** The running devnet when both chains answer with Ferry's contracts at the configured addresses, else our own. */
async function useOrStartChains(): Promise<Chains> {
  const registry = loadChainRegistry(process.env, 'development', `${repositoryRoot()}/configs`);
  const problems: string[] = [];
  const rpcUrls: Record<number, string> = {};
  for (const chainId of DEVNET_CHAIN_IDS) {
    const chain = registry.chain(chainId);
    const usdc = chain.currencies.find((currency) => currency.symbol === 'USDC');
    const url = chain.rpcUrl ?? '';
    rpcUrls[chainId] = url;
    const problem = url
      ? await devnetProblem(url, chainId, [chain.depository, ...(usdc ? [usdc.address] : [])])
      : `no RPC URL for chain ${chainId}`;
    if (problem) problems.push(problem);
  }
  if (problems.length === 0) {
    return { rpcUrls, origin: 'using the running devnet (npm run devnet)', own: false, stop: async () => {} };
  }
  write(`  no usable devnet: ${problems.join('; ')}`);
  write('  starting two local chains (Hardhat/EDR, automine) and deploying the contracts…');
  const startedAt = performance.now();
  const own = await startDevnets();
  const stop = async () => {
    await Promise.all(own.map((chain) => chain.stop()));
  };
  return {
    rpcUrls: Object.fromEntries(own.map((chain: LocalChain) => [chain.chainId, chain.rpcUrl])),
    origin: `started two chains in ${Math.round(performance.now() - startedAt)} ms (stopped at the end)`,
    own: true,
    stop,
  };
}

/** Why `url` is not the devnet chain `chainId` with Ferry's contracts, or null when it is. */
async function devnetProblem(
  url: string,
  chainId: number,
  contracts: readonly string[],
): Promise<string | null> {
  try {
    const answered = Number(await rpc<string>(url, 'eth_chainId', [], PROBE_TIMEOUT_MS));
    if (answered !== chainId) return `${url} is chain ${answered}, not ${chainId}`;
    for (const address of contracts) {
      const code = await rpc<string>(url, 'eth_getCode', [address, 'latest'], PROBE_TIMEOUT_MS);
      if (!code || code === '0x') return `${url} has no contract at ${address}`;
    }
    return null;
  } catch (error) {
    return `${url} does not answer (${messageOf((error as { cause?: unknown }).cause ?? error)})`;
  }
}

/**
 * The Ferry API at `FERRY_URL` when it answers `GET /chains` with both devnets and reads the same chains we use;
 * else Ferry in-process on a free loopback port (development config, PGlite in memory, watcher and solver on).
 */
async function useOrStartFerry(chains: Chains): Promise<Ferry> {
  const url = (process.env.FERRY_URL || 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const remote = await ferryProblem(url);
  if (remote === null && !chains.own) {
    return { baseUrl: url, origin: `using the Ferry API at FERRY_URL`, app: null, stop: async () => {} };
  }
  if (remote === null) {
    write(`  a Ferry API answers at ${url}, but it reads the devnet ports, not the chains this demo started`);
  } else {
    write(`  no Ferry API at ${url} (${remote})`);
  }
  write(
    '  starting Ferry in-process (ENVIRONMENT=development, DATA_DIR=memory://demo, watcher and solver on)…',
  );
  const startedAt = performance.now();
  const config = loadAppConfig(
    {
      ENVIRONMENT: 'development',
      DATA_DIR: 'memory://demo',
      LOG_LEVEL: process.env.LOG_LEVEL || 'error',
      DEVNET_A_RPC_URL: chains.rpcUrls[31337],
      DEVNET_B_RPC_URL: chains.rpcUrls[31338],
      // Started below, once it knows where to begin (on a running devnet: at the head).
      CHAIN_WATCHER_RUN: 'false',
      SOLVER_RUN: 'true',
      SOLVER_PRIVATE_KEY: DEVNET_ACCOUNTS.solver.privateKey,
      RELAYER_PRIVATE_KEY: DEVNET_ACCOUNTS.relayer.privateKey,
      CHAIN_POLL_INTERVAL_MS: '100',
      PROJECTION_POLL_INTERVAL_MS: '20',
    },
    `${repositoryRoot()}/configs`,
  );
  const app = await createApp(config);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    if (!chains.own) await watchFromHead(app, chains);
    app.get(ChainRuntime).watcher.start();
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.getHttpServer().address();
  const port = address !== null && typeof address === 'object' ? address.port : 0;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    origin: `started in-process in ${Math.round(performance.now() - startedAt)} ms (stopped at the end)`,
    app,
    stop: () => app.close(),
  };
}

/**
 * Points a fresh database's watcher cursors at the chains' heads. A running devnet holds the deposits of earlier
 * demos, which this throwaway database never quoted: scanned from block 0 (what a watcher does on a short chain it
 * has never seen), each would be returned to its depositor as a deposit for an unknown request (docs/settlement.md,
 * "Wrong deposits"), paying the user a second time.
 */
async function watchFromHead(app: NestFastifyApplication, chains: Chains): Promise<void> {
  const db = app.get<symbol, Database>(DATABASE);
  for (const chainId of DEVNET_CHAIN_IDS) {
    const head = BigInt(await rpc<string>(chains.rpcUrls[chainId], 'eth_blockNumber'));
    await db.query(
      `INSERT INTO chain_cursors (chain_id, seen_block, final_block) VALUES ($1, $2, $2) ON CONFLICT (chain_id) DO NOTHING`,
      [chainId, head.toString()],
    );
  }
}

/** Why `url` is not a Ferry API listing both devnets, or null when it is. */
async function ferryProblem(url: string): Promise<string | null> {
  try {
    const response = await fetch(`${url}/chains`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!response.ok) return `GET /chains answered ${response.status}`;
    const body = (await response.json()) as { chains?: { id: number }[] };
    const ids = new Set((body.chains ?? []).map((chain) => chain.id));
    const missing = DEVNET_CHAIN_IDS.filter((chainId) => !ids.has(chainId));
    return missing.length ? `GET /chains does not list ${missing.join(', ')}` : null;
  } catch (error) {
    return messageOf((error as { cause?: unknown }).cause ?? error);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

interface ApiClient {
  get<T>(path: string, headers?: Record<string, string>): Promise<T>;
  post<T>(path: string, body: unknown): Promise<T>;
}

function apiClient(baseUrl: string): ApiClient {
  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok)
      throw new DemoFailure(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };
  return {
    get: (path, headers) => call('GET', path, undefined, headers),
    post: (path, body) => call('POST', path, body),
  };
}

/** Polls the step's check endpoint, printing each new status, until `success`; fails on failure, refund or time-out. */
async function followStatus(api: ApiClient, endpoint: string, since: number): Promise<Status> {
  let last = '';
  for (;;) {
    const status = await api.get<Status>(endpoint);
    const elapsed = Math.round(performance.now() - since);
    if (status.status !== last) {
      last = status.status;
      write(`  +${String(elapsed).padStart(5)} ms  ${status.status}`);
    }
    if (status.status === 'success') return status;
    if (status.status === 'failure' || status.status === 'refund') {
      throw new DemoFailure(
        `the request ended ${status.status}: ${status.failReason ?? 'no fail reason'}` +
          (status.details ? ` (${status.details})` : ''),
      );
    }
    if (elapsed > STATUS_TIMEOUT_MS) {
      throw new DemoFailure(`still ${status.status} ${STATUS_TIMEOUT_MS / 1000} s after the deposit`);
    }
    await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
  }
}

/** In-process: a fresh key from `ApiKeysService.create`. Remote: `FERRY_API_KEY`, or none (the step is skipped). */
async function demoApiKey(ferry: Ferry): Promise<string | null> {
  if (ferry.app) {
    const created = await ferry.app.get(ApiKeysService).create({ label: 'demo' });
    write(`  API key ${created.keyPrefix}… created with ApiKeysService.create (label "demo")`);
    return created.key;
  }
  const key = process.env.FERRY_API_KEY;
  if (key) {
    write('  API key from FERRY_API_KEY');
    return key;
  }
  write('  skipped: the history needs an API key, and this demo creates one only for an in-process Ferry.');
  write(
    '  Create one with `npm run cli -- api-keys:create --label demo` and run again with FERRY_API_KEY=<key>.',
  );
  return null;
}

/** The request's v3 record, once the history projection has it (it lists a request once a deposit is seen). */
async function waitForRecord(
  api: ApiClient,
  apiKey: string,
  requestId: string,
): Promise<Record<string, unknown>> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const page = await api.get<{ requests: Record<string, unknown>[] }>(
      `/requests/v3?user=${USER.address}&limit=5`,
      { 'x-api-key': apiKey },
    );
    const record = page.requests.find(
      (candidate) => String(candidate.id).toLowerCase() === requestId.toLowerCase(),
    );
    if (record && record.status === 'success') return record;
    if (performance.now() > deadline)
      throw new DemoFailure(`GET /requests/v3 does not list ${requestId} as success`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Output

function amountText(amount: Amount): string {
  return `${amount.amountFormatted} ${amount.currency.symbol} (${amount.amountUsd} USD)`;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

interface V3Currency {
  readonly symbol: string;
  readonly chainId: number;
  readonly address: string;
}
interface V3Amount {
  readonly currency: V3Currency;
  readonly amount: string;
  readonly amountFormatted: string;
  readonly amountUsd: string;
}
interface V3Tx {
  readonly chainId: number;
  readonly txHash: string;
  readonly block: number;
  readonly timestamp: number;
  readonly status: string;
  readonly data?: { readonly kind?: string };
}
interface V3Record {
  readonly id: string;
  readonly status: string;
  readonly requestType: string;
  readonly user: string;
  readonly recipient: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly data: {
    readonly inTxs: readonly V3Tx[];
    readonly outTxs: readonly V3Tx[];
    readonly failReason: string | null;
    readonly route: {
      readonly actual: {
        readonly rate: string;
        readonly origin: { readonly inputCurrency: V3Amount };
        readonly destination: { readonly outputCurrency: V3Amount };
      };
    };
    readonly fees: {
      readonly currency: V3Currency;
      readonly actual: Readonly<Record<string, { readonly amountFormatted: string; readonly usd: string }>>;
    };
  };
  readonly protocol: { readonly solver?: { readonly address: string } };
}

/**
 * The main fields of a v3 record, in their places (docs/history.md, spec "Request record"): who, status, what was
 * deposited and received, the fees charged, the transactions. Currencies shrink to symbol, chain and address.
 */
function trimRecord(full: Record<string, unknown>): Record<string, unknown> {
  const record = full as unknown as V3Record;
  const currency = ({ symbol, chainId, address }: V3Currency) => ({ symbol, chainId, address });
  const amount = (value: V3Amount) => ({
    currency: currency(value.currency),
    amount: value.amount,
    amountFormatted: value.amountFormatted,
    amountUsd: value.amountUsd,
  });
  const tx = ({ chainId, txHash, block, timestamp, status, data }: V3Tx) => ({
    kind: data?.kind,
    chainId,
    txHash,
    block,
    timestamp,
    status,
  });
  const { route, fees } = record.data;
  return {
    id: record.id,
    status: record.status,
    requestType: record.requestType,
    user: record.user,
    recipient: record.recipient,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    data: {
      route: {
        actual: {
          rate: route.actual.rate,
          origin: { inputCurrency: amount(route.actual.origin.inputCurrency) },
          destination: { outputCurrency: amount(route.actual.destination.outputCurrency) },
        },
      },
      fees: {
        currency: currency(fees.currency),
        actual: Object.fromEntries(
          Object.entries(fees.actual).filter(([, fee]) => fee.amountFormatted !== '0'),
        ),
      },
      inTxs: record.data.inTxs.map(tx),
      outTxs: record.data.outTxs.map(tx),
      failReason: record.data.failReason,
    },
    protocol: { solver: record.protocol.solver?.address ?? null },
  };
}

// ---------------------------------------------------------------------------------------------------------------

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping what the demo started\n`);
    void cleanUp().then(() => process.exit(130));
  });
}

main().then(
  async () => {
    await cleanUp();
    process.exit(0);
  },
  async (error: unknown) => {
    process.stderr.write(
      `\nnpm run demo failed: ${error instanceof DemoFailure ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    await cleanUp();
    process.exit(1);
  },
);
