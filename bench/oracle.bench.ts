import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type Address,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hash,
  type Hex,
  http,
  keccak256,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_ORACLE_SIGNERS } from '../scripts/devnet/deploy-oracle-verifier.js';
import { DEVNET_ACCOUNTS } from '../scripts/devnet/deploy-devnet.js';
import { type Devnet, startDevnet } from '../scripts/devnet/devnets.js';
import { depositoryAbi } from '../src/chains/abi/depository.js';
import { ReadClients } from '../src/chains/read-clients.js';
import { JsonLogger } from '../src/common/logging/json-logger.js';
import { loadOracleConfig } from '../src/oracle/config/oracle-config.js';
import { createOracleApp } from '../src/oracle/create-oracle-app.js';
import { RawKeySigner } from '../src/oracle/signer/oracle-signer.js';
import type { OracleDomain } from '../src/oracle/messages/oracle-messages.js';
import { type AttestationAnswer, checkAnswers } from './oracle-answers.js';
import { measureSigningCosts, type SigningCosts } from './oracle-signing-costs.js';
import { median, now, percentile, processCpuMs, write } from './support.js';

/**
 * Issue 13's figures: deposit attestations per second from one oracle instance against a local chain, next to the
 * chain reads each attestation makes (the anchor the oracle cannot beat), and the cost of peer fan-out (one
 * instance asking two peers) as a ratio of the same workload without it. Everything runs on this machine: the chain,
 * three oracle instances in this process, and the client.
 */

export interface OracleBenchOptions {
  /** Deposits made, and attested once per workload per round. */
  readonly deposits: number;
  /** Requests in flight at any time. */
  readonly concurrency: number;
  /** Measured rounds; each runs the three workloads back to back, in rotating order. */
  readonly rounds: number;
}

export type Workload = 'anchor' | 'single' | 'fanOut';

export interface WorkloadFigures {
  /** Median over rounds of operations ÷ the round's wall time. */
  readonly perSecond: number;
  /** Each operation's time, pooled over the rounds. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU per 1,000 operations: this process (oracles and client), the chain's node; null when unreadable. */
  readonly nodeCpuMsPer1k: number;
  readonly chainCpuMsPer1k: number | null;
  /** Bytes the oracles logged per operation (info level). */
  readonly logBytesPerOperation: number;
}

export interface OracleFigures {
  readonly options: OracleBenchOptions;
  readonly depositSeconds: number;
  readonly workloads: Readonly<Record<Workload, WorkloadFigures>>;
  /** Per round: single ÷ anchor and fan-out ÷ single; the figures are their medians. */
  readonly anchorRatios: readonly number[];
  readonly fanOutRatios: readonly number[];
  readonly anchorRatio: number;
  readonly fanOutRatio: number;
  /** Signatures recovered and counted after the rounds (every answer, every signature). */
  readonly checked: { readonly singleSignatures: number; readonly fanOutSignatures: number };
  /** Each signing step timed alone, after the rounds. */
  readonly signing: SigningCosts;
}

const CHAIN_ID = 31337;
const ROUTE = '/attestations/depository-deposits/v1';
const DEPOSIT_GAS = 120_000n;
/** The client's key and the peers' key (API_KEYS on every instance, as a reachable deployment runs). */
const CLIENT_KEY = 'bench-client-key';
const PEER_KEY = 'bench-peer-key';
/**
 * The third signer, Hardhat account #9 (a public test key, never for a real chain); #7 and #8 are the devnet
 * oracle signers (scripts/devnet/deploy-oracle-verifier.ts).
 */
const HARDHAT_9 = {
  address: getAddress('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720'),
  privateKey: '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6' as Hex,
};
const SIGNERS = [...DEVNET_ORACLE_SIGNERS, HARDHAT_9];

interface Oracle {
  readonly app: NestFastifyApplication;
  readonly url: string;
  readonly signer: Address;
  readonly domain: OracleDomain;
}

/** Starts a devnet, makes the deposits, starts three oracles, measures; stops everything. */
export async function runOracleBench(options: OracleBenchOptions): Promise<OracleFigures> {
  if (privateKeyToAccount(HARDHAT_9.privateKey).address !== HARDHAT_9.address) {
    throw new Error('The third oracle key does not belong to Hardhat account #9');
  }
  const chain = await startDevnet({ chainId: CHAIN_ID });
  const oracles: Oracle[] = [];
  try {
    const started = now();
    const deposits = await makeDeposits(chain, options.deposits);
    const depositSeconds = (now() - started) / 1000;
    write(`  ${deposits.length} native deposits mined in ${depositSeconds.toFixed(1)} s`);

    const logged = { bytes: 0 };
    // The two peers first, so the fanning-out instance can name them in PEERS.
    for (const signer of SIGNERS.slice(1)) oracles.push(await startOracle(chain, signer.privateKey, logged));
    const peers = oracles.map((oracle) => `${oracle.url}|${PEER_KEY}`).join(';');
    const main = await startOracle(chain, SIGNERS[0].privateKey, logged, peers);
    oracles.unshift(main);

    const reads = new ReadClients(5000).of(chain.rpcUrl, CHAIN_ID);
    const operations: Record<Workload, (hash: Hash) => Promise<unknown>> = {
      // What EvmAttestor.finalTransaction reads per deposit, through the same kind of viem client.
      anchor: async (hash) => {
        await Promise.all([reads.getTransactionReceipt({ hash }), reads.getTransaction({ hash })]);
        return reads.getBlockNumber({ cacheTime: 0 });
      },
      single: (hash) => attest(main.url, hash, false),
      fanOut: (hash) => attest(main.url, hash, true),
    };
    const hashes = deposits.map((deposit) => deposit.hash);

    write(`  warm-up: ${Math.min(50, hashes.length)} of each…`);
    for (const workload of ['anchor', 'single', 'fanOut'] as const) {
      await drive(hashes.slice(0, 50), options.concurrency, operations[workload]);
    }

    const order: Workload[] = ['anchor', 'single', 'fanOut'];
    const runs: Record<Workload, Run[]> = { anchor: [], single: [], fanOut: [] };
    const checked = { singleSignatures: 0, fanOutSignatures: 0 };
    for (let round = 0; round < options.rounds; round++) {
      const rotated = order.map((_, i) => order[(i + round) % order.length]);
      for (const workload of rotated) {
        const chainBefore = processCpuMs(chain.pid);
        const nodeBefore = nodeCpuMs();
        const bytesBefore = logged.bytes;
        const { seconds, latencies, results } = await drive(
          hashes,
          options.concurrency,
          operations[workload],
        );
        const chainAfter = processCpuMs(chain.pid);
        runs[workload].push({
          perSecond: hashes.length / seconds,
          latencies,
          nodeCpuMs: nodeCpuMs() - nodeBefore,
          chainCpuMs: chainBefore === null || chainAfter === null ? null : chainAfter - chainBefore,
          logBytes: logged.bytes - bytesBefore,
        });
        // Checked after the timing, so the check's own recoveries are not in the figure.
        if (workload !== 'anchor') {
          const signers = workload === 'single' ? [main.signer] : oracles.map((oracle) => oracle.signer);
          const answers = results as AttestationAnswer[];
          const counted = await checkAnswers(answers, deposits, signers, main.domain);
          checked[workload === 'single' ? 'singleSignatures' : 'fanOutSignatures'] += counted;
        }
      }
      const last = (workload: Workload) => runs[workload][round].perSecond;
      write(
        `  round ${round + 1}/${options.rounds}: reads ${last('anchor').toFixed(0)}/s, attestations ` +
          `${last('single').toFixed(0)}/s, with two peers ${last('fanOut').toFixed(0)}/s`,
      );
    }
    const signing = await measureSigningCosts(new RawKeySigner(SIGNERS[0].privateKey), main.domain);
    const anchorRatios = runs.single.map((run, i) => run.perSecond / runs.anchor[i].perSecond);
    const fanOutRatios = runs.fanOut.map((run, i) => run.perSecond / runs.single[i].perSecond);
    return {
      options,
      depositSeconds,
      workloads: {
        anchor: summarise(runs.anchor, hashes.length),
        single: summarise(runs.single, hashes.length),
        fanOut: summarise(runs.fanOut, hashes.length),
      },
      anchorRatios,
      fanOutRatios,
      anchorRatio: median(anchorRatios),
      fanOutRatio: median(fanOutRatios),
      checked,
      signing,
    };
  } finally {
    await Promise.all(oracles.map((oracle) => oracle.app.close()));
    await chain.stop();
  }
}

interface Run {
  readonly perSecond: number;
  readonly latencies: readonly number[];
  readonly nodeCpuMs: number;
  readonly chainCpuMs: number | null;
  readonly logBytes: number;
}

function summarise(runs: readonly Run[], operations: number): WorkloadFigures {
  const latencies = runs.flatMap((run) => run.latencies);
  const total = operations * runs.length;
  const chain = runs.map((run) => run.chainCpuMs);
  return {
    perSecond: median(runs.map((run) => run.perSecond)),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    nodeCpuMsPer1k: (1000 * runs.reduce((sum, run) => sum + run.nodeCpuMs, 0)) / total,
    chainCpuMsPer1k: chain.some((ms) => ms === null)
      ? null
      : (1000 * chain.reduce<number>((sum, ms) => sum + (ms ?? 0), 0)) / total,
    logBytesPerOperation: runs.reduce((sum, run) => sum + run.logBytes, 0) / total,
  };
}

/** Native deposits from the demo user, sent back to back (explicit nonces, fixed gas), then their receipts. */
async function makeDeposits(chain: Devnet, count: number): Promise<{ hash: Hash; id: Hex }[]> {
  const account = privateKeyToAccount(DEVNET_ACCOUNTS.user.privateKey);
  const wallet = createWalletClient({ account, transport: http(chain.rpcUrl, { retryCount: 0 }) });
  const reads = new ReadClients(30_000).of(chain.rpcUrl, CHAIN_ID);
  const nonce = await reads.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const fees = await reads.estimateFeesPerGas();
  const sent: { hash: Hash; id: Hex }[] = [];
  for (let i = 0; i < count; i++) {
    const id = keccak256(toHex(`oracle-bench-deposit-${i}`));
    const hash = await wallet.sendTransaction({
      chain: null,
      to: chain.deployment.depository as Address,
      data: encodeFunctionData({
        abi: depositoryAbi,
        functionName: 'depositNative',
        args: [account.address, id],
      }),
      // 0.001 ETH and a few wei, so no two deposits look alike.
      value: 10n ** 15n + BigInt(i),
      nonce: nonce + i,
      gas: DEPOSIT_GAS,
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    sent.push({ hash, id });
  }
  for (const { hash } of sent) {
    const receipt = await reads.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    if (receipt.status !== 'success') throw new Error(`Deposit ${hash} reverted`);
  }
  return sent;
}

/**
 * One oracle instance in this process, as `npm run start:oracle` builds it (ENVIRONMENT=test, both devnet chains
 * read from this one chain, API keys on), logging at info into a byte counter instead of stdout.
 */
async function startOracle(
  chain: Devnet,
  privateKey: Hex,
  logged: { bytes: number },
  peers?: string,
): Promise<Oracle> {
  const config = loadOracleConfig({
    ENVIRONMENT: 'test',
    DEVNET_A_RPC_URL: chain.rpcUrl,
    DEVNET_B_RPC_URL: chain.rpcUrl,
    ECDSA_PRIVATE_KEY: privateKey,
    API_KEYS: `${CLIENT_KEY}:bench-client;${PEER_KEY}:bench-peer`,
    ...(peers ? { PEERS: peers } : {}),
  });
  const signer = new RawKeySigner(privateKey);
  const logger = new JsonLogger('info', (line) => {
    logged.bytes += Buffer.byteLength(line);
  });
  const app = await createOracleApp(config, signer, { logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${port}`, signer: signer.address, domain: config.domain };
}

async function attest(url: string, hash: Hash, requestPeerSignatures: boolean): Promise<AttestationAnswer> {
  const response = await fetch(`${url}${ROUTE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': CLIENT_KEY },
    body: JSON.stringify({ chainId: CHAIN_ID, transactionId: hash, requestPeerSignatures }),
  });
  const body = await response.text();
  if (response.status !== 200)
    throw new Error(`POST ${ROUTE} for ${hash} answered ${response.status}: ${body}`);
  return JSON.parse(body) as AttestationAnswer;
}

/** Runs `one` over every item, `concurrency` at a time; each result in the items' order, and each call's time. */
async function drive<T>(
  items: readonly Hash[],
  concurrency: number,
  one: (item: Hash) => Promise<T>,
): Promise<{ seconds: number; latencies: number[]; results: T[] }> {
  const latencies: number[] = new Array<number>(items.length);
  const results: T[] = new Array<T>(items.length);
  let next = 0;
  const started = now();
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      const at = now();
      results[index] = await one(items[index]);
      latencies[index] = now() - at;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return { seconds: (now() - started) / 1000, latencies, results };
}

const nodeCpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
