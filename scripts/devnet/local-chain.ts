import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest folder up from this file with `hardhat.config.cjs` (works from `dist/` too). */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'hardhat.config.cjs'))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('hardhat.config.cjs not found above scripts/devnet/: run from the repository');
    dir = parent;
  }
  return dir;
}

export interface StartLocalChainParameters {
  readonly chainId: number;
  /** Loopback port; a free one when absent. */
  readonly port?: number;
  /** Mine every transaction at once (default true). */
  readonly automine?: boolean;
  /** Also mine a block every `intervalMs` ms without traffic; 0 (the default) mines only on transactions. */
  readonly intervalMs?: number;
  /** How long to wait for the server to answer (default 30 s). */
  readonly startTimeoutMs?: number;
}

/** One `hardhat node` (EDR) serving JSON-RPC on 127.0.0.1, in its own process group. */
export interface LocalChain {
  readonly chainId: number;
  readonly port: number;
  /** `http://127.0.0.1:<port>` (WebSocket on the same port). */
  readonly rpcUrl: string;
  /** The process id (its process group id too). */
  readonly pid: number;
  /** One JSON-RPC call; throws the node's error message. */
  request<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  /** Mines `blocks` blocks at once (`hardhat_mine`), default 1. */
  mine(blocks?: number): Promise<void>;
  /** `evm_snapshot`: an id to revert to. Reverting consumes it and every later snapshot (take a new one). */
  snapshot(): Promise<string>;
  /** `evm_revert` to a snapshot: the blocks after it disappear, as in a reorg. */
  revert(snapshotId: string): Promise<void>;
  /** `evm_setAutomine`: whether each transaction is mined at once. */
  setAutomine(enabled: boolean): Promise<void>;
  /** `evm_setIntervalMining`: mine a block every `ms` ms; 0 stops interval mining. */
  setIntervalMining(ms: number): Promise<void>;
  /** Settles when the process exits, with its exit code or the signal's name. */
  readonly exited: Promise<number | string | null>;
  /** The last output of the node (for error messages). */
  output(): string;
  /** Kills the process group and waits for the exit. Safe to call twice. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const OUTPUT_LIMIT = 64 * 1024;
const PORT_ATTEMPTS = 5;
const STOP_GRACE_MS = 3000;

/** Chains this process started and has not stopped: killed when it exits (a hard kill closes their stdin instead). */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts `hardhat node` (Hardhat 2 / EDR, `hardhat.config.cjs`) on a loopback port and resolves once it answers
 * `eth_chainId` with `chainId`. The accounts are Hardhat's well-known test accounts, each with 10,000 ETH.
 *
 * @example const chain = await startLocalChain({ chainId: 31337 }); await chain.mine(3); await chain.stop();
 */
export async function startLocalChain(parameters: StartLocalChainParameters): Promise<LocalChain> {
  if (parameters.port !== undefined) {
    if (!(await isPortFree(parameters.port))) {
      throw new Error(
        `Port ${parameters.port} on ${HOST} is in use (another devnet already running?): stop it or choose another port`,
      );
    }
    return launch(parameters, parameters.port);
  }
  // A free port can be taken between our check and Hardhat's listen: try another one then.
  let lastError: unknown;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    try {
      return await launch(parameters, await freePort());
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && error.message.includes('EADDRINUSE'))) throw error;
    }
  }
  throw lastError;
}

async function launch(parameters: StartLocalChainParameters, port: number): Promise<LocalChain> {
  const root = repositoryRoot();
  const automine = parameters.automine ?? true;
  const intervalMs = parameters.intervalMs ?? 0;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DEVNET_CHAIN_ID: String(parameters.chainId),
    DEVNET_AUTOMINE: String(automine),
    DEVNET_BLOCK_INTERVAL_MS: String(intervalMs),
    HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true',
  };
  // Jest's --experimental-vm-modules (or a debugger flag) is not for the chain.
  delete env.NODE_OPTIONS;
  const child = spawn(
    process.execPath,
    [
      join(root, 'scripts', 'devnet', 'hardhat-node.mjs'),
      '--config',
      join(root, 'hardhat.config.cjs'),
      'node',
      '--hostname',
      HOST,
      '--port',
      String(port),
    ],
    // Own process group (stop() kills the group); stdin is the pipe whose end tells it we are gone.
    { cwd: root, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  track(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const rpcUrl = `http://${HOST}:${port}`;

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
    child.stdin?.destroy();
    child.stdout?.destroy();
    child.stderr?.destroy();
    running.delete(child);
  };

  try {
    const answered = await waitForRpc(rpcUrl, exited, parameters.startTimeoutMs ?? 30_000);
    if (answered !== parameters.chainId) {
      throw new Error(`answered chain id ${answered} instead of ${parameters.chainId}`);
    }
  } catch (error) {
    await stop();
    throw new Error(
      `Local chain ${parameters.chainId} did not start on ${rpcUrl}: ${(error as Error).message}\n${output.trim()}`,
    );
  }

  const request = <T>(method: string, params: readonly unknown[] = []) => rpc<T>(rpcUrl, method, params);
  return {
    chainId: parameters.chainId,
    port,
    rpcUrl,
    pid: child.pid!,
    request,
    mine: async (blocks = 1) => {
      await request('hardhat_mine', [`0x${blocks.toString(16)}`]);
    },
    snapshot: () => request<string>('evm_snapshot'),
    revert: async (snapshotId) => {
      if (!(await request<boolean>('evm_revert', [snapshotId]))) {
        throw new Error(
          `evm_revert found no snapshot ${snapshotId} on chain ${parameters.chainId} (already used?)`,
        );
      }
    },
    setAutomine: async (enabled) => {
      await request('evm_setAutomine', [enabled]);
    },
    setIntervalMining: async (ms) => {
      await request('evm_setIntervalMining', [ms]);
    },
    exited,
    output: () => output,
    stop,
  };
}

/** One JSON-RPC request over HTTP; throws with the node's error message. */
export async function rpc<T = unknown>(
  url: string,
  method: string,
  params: readonly unknown[] = [],
  timeoutMs = 30_000,
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method} failed on ${url}: ${body.error.message}`);
  return body.result as T;
}

/** Polls `eth_chainId` until the node answers; fails when the process exits first or the time runs out. */
async function waitForRpc(url: string, exited: Promise<unknown>, timeoutMs: number): Promise<number> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (!gone) {
    try {
      return Number(await rpc<string>(url, 'eth_chainId', [], 2000));
    } catch {
      if (Date.now() > deadline) throw new Error(`no answer after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error('the process exited');
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // Synchronous last resort for a caller that never called stop(); the stdin pipe covers a hard kill.
    process.once('exit', () => running.forEach((child) => killGroup(child, 'SIGKILL')));
  }
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
