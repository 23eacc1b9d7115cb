import type { PrivateKeyAccount, PublicClient } from 'viem';
import { toHex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import type { ChainInfo } from '../../../src/chains/chain.js';
import type { SqlExecutor } from '../../../src/database/database.js';
import { EvmClients } from '../../../src/solver/evm-clients.js';

/** Hardhat's genesis mnemonic: its accounts 0..19 are funded. */
const MNEMONIC = 'test test test test test test test test test test test junk';

/**
 * Keys of Hardhat's accounts from `first` on, one per call: each journal test takes its own key (its own nonces).
 *
 * @example const freshKey = keysFrom(10); const account = freshKey();
 */
export function keysFrom(first: number): () => PrivateKeyAccount {
  let next = first;
  return () =>
    privateKeyToAccount(toHex(mnemonicToAccount(MNEMONIC, { addressIndex: next++ }).getHdKey().privateKey!));
}

/** The next key of `next`, given 10 ETH on the devnet at `rpcUrl` (Hardhat's `hardhat_setBalance`). */
export async function fundedKey(next: () => PrivateKeyAccount, rpcUrl: string): Promise<PrivateKeyAccount> {
  const account = next();
  await rpc(rpcUrl, 'hardhat_setBalance', [account.address, toHex(10n ** 19n)]);
  return account;
}

/** One JSON-RPC call to a devnet (Hardhat's own methods included); throws the node's error message. */
export async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

/**
 * Clients whose every property read of a chain's client goes through `intercept` (methods come bound to the client):
 * the base of a test's faults and hooks on the chain.
 */
export abstract class InterceptedClients extends EvmClients {
  private readonly proxies = new Map<number, PublicClient>();

  /** What reading `property` of a chain's client gives instead of `value`. */
  protected abstract intercept(property: string | symbol, value: unknown): unknown;

  override of(chain: ChainInfo): PublicClient {
    let proxy = this.proxies.get(chain.id);
    if (!proxy) {
      proxy = new Proxy(super.of(chain), {
        get: (target, property, receiver) => {
          const value = Reflect.get(target, property, receiver) as unknown;
          return this.intercept(
            property,
            typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value,
          );
        },
      });
      this.proxies.set(chain.id, proxy);
    }
    return proxy;
  }
}

/** Clients whose named reads fail (an RPC blip) while the test says so; everything else goes to the chain. */
export class FlakyClients extends InterceptedClients {
  readonly failing = new Set<string>();

  protected intercept(property: string | symbol, value: unknown): unknown {
    if (typeof property === 'string' && this.failing.has(property)) {
      return () => Promise.reject(new Error(`${property}: fetch failed (test)`));
    }
    return value;
  }
}

/** A deposit of native currency the watcher could not match, waiting for its return to `depositor`. */
export interface UnmatchedDeposit {
  readonly depositor: `0x${string}`;
  /** Its transaction hash (made up: no such transaction is read). */
  readonly deposit: `0x${string}`;
  readonly amount: bigint;
  /** The journal job key of its return. */
  readonly key: string;
  /** Its `unmatched_deposits` row: state and the return's transaction hash. */
  row(): Promise<{ state: string; refund_tx_hash: string }>;
}

/**
 * Records, on chain 31338, an unmatched native deposit of `amount` (0.1 ETH by default) from a fresh depositor, as the
 * watcher does for a deposit naming an unknown request (`requestByte`: the request id it named, one byte repeated).
 */
export async function unmatchedDeposit(
  db: SqlExecutor,
  requestByte: number,
  amount = 10n ** 17n,
): Promise<UnmatchedDeposit> {
  const depositor = privateKeyToAccount(generatePrivateKey()).address;
  const deposit = toHex(BigInt(Date.now()) * 1000n + BigInt(Math.floor(Math.random() * 1000)), { size: 32 });
  await db.query(
    `INSERT INTO unmatched_deposits (chain_id, tx_hash, log_index, request_id, depositor, currency, amount, reason)
     VALUES (31338, $1, 0, $2, $3, '0x0000000000000000000000000000000000000000', $4, 'UNKNOWN_REQUEST')`,
    [deposit, toHex(BigInt(requestByte), { size: 32 }), depositor, amount.toString()],
  );
  return {
    depositor,
    deposit,
    amount,
    key: `return:31338:${deposit}:0`,
    row: async () =>
      (
        await db.query<{ state: string; refund_tx_hash: string }>(
          'SELECT state, refund_tx_hash FROM unmatched_deposits WHERE tx_hash = $1',
          [deposit],
        )
      ).rows[0],
  };
}
