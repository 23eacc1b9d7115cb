import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hash,
  type Hex,
  http,
  keccak256,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import type { Database } from '../src/database/database.js';
import { DEVNET_ACCOUNTS } from '../scripts/devnet/deploy-devnet.js';
import { startDevnets } from '../scripts/devnet/devnets.js';
import type { LocalChain } from '../scripts/devnet/local-chain.js';
import { benchConfig, startBenchApp } from './bench-app.js';
import {
  countQueries,
  countRpcCalls,
  stagesOf,
  startChainsCpu,
  startPostgresCpu,
  startProfile,
} from './settlement-measures.js';
import { now, percentile, type ScratchDatabase, startMachineCpu, write } from './support.js';

/**
 * The Settlement issue's figures: two local chains (Hardhat/EDR, automine, 1-block finality as in the test config)
 * and the real app in-process on a scratch PostgreSQL database with the chain watcher and Ferry's solver running,
 * driven as a wallet drives it, over HTTP:
 *  (a) latency: native-ETH requests one after another: quote, send the deposit, get its receipt (the clock starts
 *      there: under automine the block is mined before the node answers), then `GET /intents/status/v3` every
 *      `statusPollMs` until `success`; also when `pending` (deposit final, seen by the watcher) and `submitted` (the
 *      fill sent) first answered;
 *  (b) throughput: `inFlight` quotes first (from `SENDERS` users, in turn), each user's deposits signed (explicit
 *      nonces, fixed gas) before the clock starts, as users' wallets sign on their own machines; then the users send
 *      at once, each its own deposits back to back (no waiting for receipts), every request polled from the first
 *      send until `success` (rounds 1 s apart, 10 ms once 16 or fewer are open): requests ÷ time from the first
 *      deposit sent to the last `success` answered.
 */

export interface SettlementOptions {
  /** (a): requests one after another. */
  readonly sequential: number;
  /** (b): requests in flight at once. */
  readonly inFlight: number;
  /** `CHAIN_POLL_INTERVAL_MS`: the watcher's and the solver's idle poll interval. */
  readonly chainPollIntervalMs: number;
  /** How often the wallet asks the status endpoint. */
  readonly statusPollMs: number;
}

export interface StageTimes {
  /** Receipt → first `pending` answer (the watcher saw the deposit final and confirmed it). */
  readonly pendingMs: number;
  /** Receipt → first `submitted` answer (the solver sent the fill); NaN when the poll never saw it. */
  readonly submittedMs: number;
  /** Receipt → first `success` answer. */
  readonly successMs: number;
}

export interface SettlementFigures {
  readonly options: SettlementOptions;
  /** As the app ran: projections' poll interval, finality of the two chains, the solver's job batch. */
  readonly app: { readonly projectionPollIntervalMs: number; readonly finalityBlocks: number };
  readonly latency: {
    readonly requests: number;
    readonly p50Ms: number;
    readonly p99Ms: number;
    readonly maxMs: number;
    /** p50 of each stage, from the receipt. */
    readonly pendingP50Ms: number;
    readonly submittedP50Ms: number;
    readonly pendingP99Ms: number;
    /** Deposit sent → receipt in hand. */
    readonly receiptP50Ms: number;
  };
  readonly throughput: {
    readonly requests: number;
    /** Users sending the deposits, each from its own account. */
    readonly senders: number;
    readonly seconds: number;
    readonly perSecond: number;
    /** Sending every deposit (each user its own, back to back; the users at once). */
    readonly sendSeconds: number;
    /** First deposit sent → first `success`. */
    readonly firstSuccessSeconds: number;
    /** Each deposit's send answered (= mined) → its `success` (resolution: a polling round, about 1 s). */
    readonly p50Ms: number;
    readonly p99Ms: number;
    /** First deposit sent → every request answered `pending` (all deposits confirmed by the watcher). */
    readonly allPendingSeconds: number;
    /** First deposit sent → every request answered `submitted` or later (all fills sent). */
    readonly allSubmittedSeconds: number;
    /** Share of the machine's cores busy during (b) (chains, app, PostgreSQL, this client), or null. */
    readonly machineBusyShare: number | null;
    /**
     * Where the time went, from the records (events' and rows' `created_at`, the writing transaction's start): per
     * stage, the p50 over requests of deposit mined → that record, and when the last request reached it (s from the
     * first deposit sent).
     */
    readonly stages: readonly {
      readonly stage: string;
      readonly p50Ms: number;
      readonly lastSeconds: number;
    }[];
    /** Queries this process sent PostgreSQL during (b) (the app's, and the bench's few), by what they are for. */
    readonly queries: Readonly<Record<string, number>>;
    /** JSON-RPC calls the app made to the chains while the requests settled. */
    readonly rpcCalls: number;
    /** CPU time during (b), ms: this process (app and wallet), the app's PostgreSQL backends, the two chains. */
    readonly cpu: {
      readonly nodeMs: number;
      readonly postgresMs: number | null;
      readonly chainsMs: number | null;
    };
  };
}

const ETH = '0x0000000000000000000000000000000000000000';
/** (b): users sending deposits at once, each from its own account (funded on the origin chain by the bench). */
const SENDERS = 8;
const CHAIN_IDS = [31337, 31338] as const;
const REQUEST_TIMEOUT_MS = 60_000;
const DEPOSIT_GAS = 120_000n;
/** (b): the pause between polling rounds while many requests are open, and the count below which it is short. */
const WIDE_POLL_MS = 1000;
const BUSY_POLL_BELOW = 16;

interface Quote {
  readonly steps: readonly {
    readonly id: string;
    readonly items: readonly { readonly data: { to: Address; data: Hex; value: string; chainId: number } }[];
  }[];
  readonly protocol: { readonly v2: { readonly orderId: Hex } };
}

interface Status {
  readonly status: string;
  readonly failReason: string | null;
  readonly details: string | null;
}

/** Runs (a) then (b) against fresh chains and the app on `scratch`; stops both. */
export async function runSettlementBench(
  scratch: ScratchDatabase,
  options: SettlementOptions,
): Promise<SettlementFigures> {
  const chains = await startDevnets();
  try {
    const [a, b] = chains;
    const config = benchConfig(scratch.url, {
      // As the chains integration test runs the app, plus projections (the status endpoint reads one).
      PROJECTIONS_RUN: 'true',
      DEVNET_A_RPC_URL: a.rpcUrl,
      DEVNET_B_RPC_URL: b.rpcUrl,
      CHAIN_WATCHER_RUN: 'true',
      CHAIN_POLL_INTERVAL_MS: String(options.chainPollIntervalMs),
      SOLVER_RUN: 'true',
      SOLVER_PRIVATE_KEY: DEVNET_ACCOUNTS.solver.privateKey,
      RELAYER_PRIVATE_KEY: DEVNET_ACCOUNTS.relayer.privateKey,
    });
    const app = await startBenchApp(config);
    try {
      const wallet = new Wallet(a.rpcUrl, app.baseUrl, options.statusPollMs);
      const appFacts = {
        projectionPollIntervalMs: config.projections.pollIntervalMs,
        finalityBlocks: config.chains.chain(a.chainId).finality.blocks,
      };
      // Warm-up: JIT, connection pools, the gas-price cache of quotes, the watcher's and solver's first rounds.
      for (let i = 0; i < 3; i++) await wallet.settleOne(i);
      write(
        `  (a) ${options.sequential} requests one after another (status polled every ${options.statusPollMs} ms)…`,
      );
      const latency = await measureLatency(wallet, options.sequential);
      write(`  (b) ${options.inFlight} requests in flight…`);
      const throughput = await measureThroughput(wallet, options.inFlight, scratch.db, chains);
      return { options, app: appFacts, latency, throughput };
    } finally {
      await app.close();
    }
  } finally {
    await Promise.all(chains.map((chain) => chain.stop()));
  }
}

async function measureLatency(wallet: Wallet, requests: number): Promise<SettlementFigures['latency']> {
  const stages: StageTimes[] = [];
  const receipts: number[] = [];
  for (let i = 0; i < requests; i++) {
    const { stage, receiptMs } = await wallet.settleOne(1000 + i);
    stages.push(stage);
    receipts.push(receiptMs);
    if ((i + 1) % 25 === 0) write(`      ${i + 1}/${requests}`);
  }
  const success = stages.map((stage) => stage.successMs);
  const submitted = stages.map((stage) => stage.submittedMs).filter(Number.isFinite);
  return {
    requests,
    p50Ms: percentile(success, 50),
    p99Ms: percentile(success, 99),
    maxMs: Math.max(...success),
    pendingP50Ms: percentile(
      stages.map((stage) => stage.pendingMs),
      50,
    ),
    pendingP99Ms: percentile(
      stages.map((stage) => stage.pendingMs),
      99,
    ),
    submittedP50Ms: percentile(submitted, 50),
    receiptP50Ms: percentile(receipts, 50),
  };
}

async function measureThroughput(
  wallet: Wallet,
  requests: number,
  db: Database,
  chains: readonly LocalChain[],
): Promise<SettlementFigures['throughput']> {
  const senders = await wallet.fundSenders(SENDERS);
  const quotes: Quote[] = [];
  for (let i = 0; i < requests; i += 10) {
    const batch = Array.from({ length: Math.min(10, requests - i) }, (_, j) =>
      wallet.quote(100_000 + i + j, senders[(i + j) % SENDERS].address),
    );
    quotes.push(...(await Promise.all(batch)));
  }
  const signed = await wallet.signDeposits(quotes, (index) => senders[index % SENDERS]);
  const machine = startMachineCpu();
  const postgresCpu = startPostgresCpu(db);
  const nodeBefore = process.cpuUsage();
  const chainsCpu = startChainsCpu(chains);
  const profile = await startProfile();
  const queries = countQueries();
  const rpcCalls = await countRpcCalls();
  const started = now();
  const startedEpoch = Date.now();
  // Polling from the start, as wallets do, so that early successes are seen while later deposits are still sent.
  const polling = wallet.waitForAll(quotes.map((quote) => quote.protocol.v2.orderId));
  const sent = await wallet.sendAll(signed);
  const sendSeconds = (now() - started) / 1000;
  const { succeeded, pending, submitted } = await polling;
  const last = Math.max(...succeeded);
  const busy = machine();
  const nodeUsage = process.cpuUsage(nodeBefore);
  const used = { nodeMs: (nodeUsage.user + nodeUsage.system) / 1000, postgresMs: await postgresCpu() };
  const chainsMs = chainsCpu();
  const queryCounts = queries();
  const rpcCallCount = await rpcCalls();
  await profile();
  // Under automine a transaction is mined before the node answers its send: the send's answer is the mined time.
  const latencies = succeeded.map((at, index) => at - sent[index].at);
  await Promise.all(sent.map(({ hash }) => wallet.receipt(hash)));
  const stages = await stagesOf(
    db,
    quotes.map((quote) => quote.protocol.v2.orderId),
    sent.map(({ at }) => startedEpoch + (at - started)),
    startedEpoch,
  );
  return {
    stages,
    queries: queryCounts,
    rpcCalls: rpcCallCount,
    requests,
    senders: SENDERS,
    seconds: (last - started) / 1000,
    perSecond: requests / ((last - started) / 1000),
    sendSeconds,
    firstSuccessSeconds: (Math.min(...succeeded) - started) / 1000,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    allPendingSeconds: (Math.max(...pending) - started) / 1000,
    allSubmittedSeconds: (Math.max(...submitted) - started) / 1000,
    machineBusyShare: busy?.busyShare ?? null,
    cpu: { nodeMs: used.nodeMs, postgresMs: used.postgresMs, chainsMs },
  };
}

/** The demo user's wallet on the origin chain, and the HTTP calls a wallet makes. */
class Wallet {
  private readonly account = privateKeyToAccount(DEVNET_ACCOUNTS.user.privateKey);
  private readonly reader: PublicClient;
  private readonly writer: WalletClient;

  constructor(
    rpcUrl: string,
    private readonly baseUrl: string,
    private readonly statusPollMs: number,
  ) {
    const transport = http(rpcUrl, { retryCount: 0 });
    // cacheTime 0: viem would otherwise answer block and nonce reads from a cache for up to 4 s.
    this.reader = createPublicClient({ transport, pollingInterval: 10, cacheTime: 0 }) as PublicClient;
    this.writer = createWalletClient({ transport, cacheTime: 0 });
  }

  async quote(index: number, user: Address = this.account.address): Promise<Quote> {
    const response = await fetch(`${this.baseUrl}/quote/v2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        user,
        originChainId: CHAIN_IDS[0],
        destinationChainId: CHAIN_IDS[1],
        originCurrency: ETH,
        destinationCurrency: ETH,
        // 0.01 ETH and a few wei, so no two requests look alike.
        amount: String(10n ** 16n + BigInt(index)),
        tradeType: 'EXACT_INPUT',
      }),
    });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`POST /quote/v2 answered ${response.status}: ${body}`);
    return JSON.parse(body) as Quote;
  }

  async status(requestId: string): Promise<Status> {
    const response = await fetch(`${this.baseUrl}/intents/status/v3?requestId=${requestId}`);
    if (response.status !== 200) {
      throw new Error(`GET /intents/status/v3 answered ${response.status}: ${await response.text()}`);
    }
    return (await response.json()) as Status;
  }

  /** (a): one request end to end; times from the deposit's receipt. */
  async settleOne(index: number): Promise<{ stage: StageTimes; receiptMs: number }> {
    const quote = await this.quote(index);
    const sentAt = now();
    const hash = await this.send(deposit(quote));
    const receipt = await this.receipt(hash);
    const seen = new Map<string, number>();
    const requestId = quote.protocol.v2.orderId;
    for (;;) {
      const status = await this.status(requestId);
      const at = now();
      if (!seen.has(status.status)) seen.set(status.status, at - receipt.at);
      if (status.status === 'success') break;
      failOn(requestId, status, at - receipt.at);
      await sleep(this.statusPollMs);
    }
    return {
      stage: {
        pendingMs: seen.get('pending') ?? seen.get('submitted') ?? seen.get('success')!,
        submittedMs: seen.get('submitted') ?? Number.NaN,
        successMs: seen.get('success')!,
      },
      receiptMs: receipt.at - sentAt,
    };
  }

  /** (b): `count` users of their own, each funded with 10,000 ETH on the origin chain (keys derived from their index). */
  async fundSenders(count: number): Promise<PrivateKeyAccount[]> {
    const senders = Array.from({ length: count }, (_, index) =>
      privateKeyToAccount(keccak256(new TextEncoder().encode(`ferry-bench-sender-${index}`))),
    );
    for (const sender of senders) {
      await this.reader.request({
        method: 'hardhat_setBalance',
        params: [sender.address, `0x${(10n ** 22n).toString(16)}`],
      } as never);
    }
    return senders;
  }

  /**
   * (b): each quote's deposit signed by its user (`senderOf(index)`), with the user's next nonces in quote order and
   * fixed gas (no estimates): what each user's wallet does on its own machine before sending.
   */
  async signDeposits(
    quotes: readonly Quote[],
    senderOf: (index: number) => PrivateKeyAccount,
  ): Promise<{ readonly sender: Address; readonly raw: Hex }[]> {
    const fees = await this.reader.estimateFeesPerGas();
    const nonces = new Map<Address, number>();
    const signed: { sender: Address; raw: Hex }[] = [];
    for (const [index, quote] of quotes.entries()) {
      const sender = senderOf(index);
      const nonce =
        nonces.get(sender.address) ??
        (await this.reader.getTransactionCount({ address: sender.address, blockTag: 'pending' }));
      nonces.set(sender.address, nonce + 1);
      const raw = await sender.signTransaction({
        ...deposit(quote),
        type: 'eip1559',
        chainId: CHAIN_IDS[0],
        nonce,
        gas: DEPOSIT_GAS,
        maxFeePerGas: fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      signed.push({ sender: sender.address, raw });
    }
    return signed;
  }

  /** (b): the users send at once, each its own deposits in nonce order, back to back; when each send was answered. */
  async sendAll(signed: readonly { sender: Address; raw: Hex }[]): Promise<{ hash: Hash; at: number }[]> {
    const lanes = new Map<Address, number[]>();
    for (const [index, { sender }] of signed.entries()) {
      lanes.set(sender, [...(lanes.get(sender) ?? []), index]);
    }
    const sent = new Array<{ hash: Hash; at: number }>(signed.length);
    await Promise.all(
      [...lanes.values()].map(async (indexes) => {
        for (const index of indexes) {
          const hash = await this.writer.sendRawTransaction({ serializedTransaction: signed[index].raw });
          sent[index] = { hash, at: now() };
        }
      }),
    );
    return sent;
  }

  /**
   * (b): polls every unfinished request each round (16 at a time) until all answer `success`, pausing 1 s
   * between rounds (as a wallet polls), `statusPollMs` once few are left (so the last `success` is timed closely); when each first
   * answered `pending` (or later), `submitted` (or later) and `success`.
   */
  async waitForAll(
    requestIds: readonly string[],
  ): Promise<{ pending: number[]; submitted: number[]; succeeded: number[] }> {
    const unseen = () => new Array<number>(requestIds.length).fill(Number.NaN);
    const [pending, submitted, succeeded] = [unseen(), unseen(), unseen()];
    const started = now();
    let open = requestIds.map((_, index) => index);
    while (open.length > 0) {
      for (let i = 0; i < open.length; i += 16) {
        await Promise.all(
          open.slice(i, i + 16).map(async (index) => {
            const status = await this.status(requestIds[index]);
            const at = now();
            const stage = ['pending', 'submitted', 'success'].indexOf(status.status);
            if (stage >= 0 && Number.isNaN(pending[index])) pending[index] = at;
            if (stage >= 1 && Number.isNaN(submitted[index])) submitted[index] = at;
            if (stage === 2) succeeded[index] = at;
            else failOn(requestIds[index], status, at - started);
          }),
        );
      }
      open = open.filter((index) => Number.isNaN(succeeded[index]));
      // Rounds over many open requests would otherwise load the app more than the settling does.
      if (open.length > 0) await sleep(open.length > BUSY_POLL_BELOW ? WIDE_POLL_MS : this.statusPollMs);
    }
    return { pending, submitted, succeeded };
  }

  async receipt(hash: Hash): Promise<TransactionReceipt & { at: number }> {
    for (;;) {
      const receipt = await this.reader.getTransactionReceipt({ hash }).catch(() => null);
      if (receipt) {
        if (receipt.status !== 'success') throw new Error(`Deposit ${hash} reverted`);
        return { ...receipt, at: now() };
      }
      await sleep(5);
    }
  }

  private send(call: { to: Address; data: Hex; value: bigint }): Promise<Hash> {
    return this.writer.sendTransaction({ account: this.account, chain: null, ...call });
  }
}

function deposit(quote: Quote): { to: Address; data: Hex; value: bigint } {
  const step = quote.steps.find((candidate) => candidate.id === 'deposit');
  if (!step || quote.steps.length !== 1) {
    throw new Error(
      `A native quote should have one deposit step, got ${quote.steps.map((s) => s.id).join(', ')}`,
    );
  }
  const { to, data, value } = step.items[0].data;
  return { to, data, value: BigInt(value) };
}

function failOn(requestId: string, status: Status, elapsedMs: number): void {
  if (status.status === 'failure' || status.status === 'refund') {
    throw new Error(
      `Request ${requestId} ended ${status.status}: ${status.failReason ?? '?'} ${status.details ?? ''}`.trim(),
    );
  }
  if (elapsedMs > REQUEST_TIMEOUT_MS) {
    throw new Error(`Request ${requestId} is still ${status.status} after ${REQUEST_TIMEOUT_MS / 1000} s`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
