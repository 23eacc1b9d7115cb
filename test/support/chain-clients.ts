import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { erc20Abi } from '../../src/chains/abi/erc20.js';
import type { TestApp } from './app.js';

const NATIVE = '0x0000000000000000000000000000000000000000';

/** viem clients for test chains by chain id: send from a key and wait for the receipt, read balances. */
export class ChainClients {
  private readonly clients = new Map<number, { public: PublicClient; wallet: WalletClient }>();

  constructor(chains: readonly { readonly chainId: number; readonly rpcUrl: string }[]) {
    for (const chain of chains) {
      this.clients.set(chain.chainId, {
        public: createPublicClient({ transport: http(chain.rpcUrl), pollingInterval: 50 }) as PublicClient,
        wallet: createWalletClient({ transport: http(chain.rpcUrl) }),
      });
    }
  }

  reader(chainId: number): PublicClient {
    return this.of(chainId).public;
  }

  wallet(chainId: number): WalletClient {
    return this.of(chainId).wallet;
  }

  /** Sends a transaction from `key` and resolves with its receipt. */
  async send(chainId: number, key: Hex, to: Address, data?: Hex, value = 0n): Promise<TransactionReceipt> {
    const hash = await this.wallet(chainId).sendTransaction({
      account: privateKeyToAccount(key),
      chain: null,
      to,
      data,
      value,
    });
    return this.reader(chainId).waitForTransactionReceipt({ hash });
  }

  /** The native balance (currency = the zero address) or an ERC-20 balance. */
  balanceOf(chainId: number, currency: string, owner: Address): Promise<bigint> {
    const reader = this.reader(chainId);
    return currency === NATIVE
      ? reader.getBalance({ address: owner })
      : reader.readContract({
          address: currency as Address,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [owner],
        });
  }

  private of(chainId: number) {
    const client = this.clients.get(chainId);
    if (!client) throw new Error(`No client for chain ${chainId}`);
    return client;
  }
}

/** Polls `probe` every 100 ms until it returns something truthy; fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A request's answer from the status endpoint. */
export async function requestStatus(
  app: TestApp,
  requestId: string,
): Promise<{ status: string; failReason: string | null }> {
  return (await app.http.inject({ method: 'GET', url: `/intents/status/v3?requestId=${requestId}` })).json();
}

/** Waits (up to 90 s) for the request to end, filled or refunded: its status then, `success` or `refund`. */
export function requestEnded(app: TestApp, requestId: string): Promise<'success' | 'refund'> {
  return waitFor(
    async () => {
      const { status } = await requestStatus(app, requestId);
      return status === 'success' || status === 'refund' ? status : null;
    },
    `request ${requestId} to end`,
    90_000,
  );
}

/** POST with a JSON body through the app; `body` is the parsed answer, as `inject` gives it. */
export async function postJson(app: TestApp, url: string, body: unknown) {
  const response = await app.http.inject({ method: 'POST', url, payload: body as object });
  return { code: response.statusCode, body: response.json() };
}

/**
 * The environment that runs Ferry's chain side against two devnets: their RPCs, the watcher and the solver on (the
 * devnet solver's key), 100 ms rounds; `extra` adds or overrides.
 */
export function settlementEnv(
  a: { readonly rpcUrl: string; readonly accounts: { readonly solver: { readonly privateKey: string } } },
  b: { readonly rpcUrl: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DEVNET_A_RPC_URL: a.rpcUrl,
    DEVNET_B_RPC_URL: b.rpcUrl,
    CHAIN_WATCHER_RUN: 'true',
    CHAIN_POLL_INTERVAL_MS: '100',
    SOLVER_RUN: 'true',
    SOLVER_PRIVATE_KEY: a.accounts.solver.privateKey,
    ...extra,
  };
}
