import {
  DEVNET_ACCOUNTS,
  type DevnetAccount,
  type DevnetAccounts,
  type DevnetDeployment,
  deployDevnet,
} from '../../scripts/devnet/deploy-devnet.js';
import { type LocalChain, startLocalChain } from '../../scripts/devnet/local-chain.js';

export type { DevnetAccount, DevnetAccounts, DevnetDeployment };
export { DEVNET_ACCOUNTS };

/** The two development chains (`configs/chains.{development,test}.json`: ferry-devnet-a and ferry-devnet-b). */
export const DEVNET_CHAIN_IDS = [31337, 31338] as const;

export interface StartDevnetOptions {
  readonly chainId: number;
  /** Loopback port; a free one when absent (tests should leave it out). */
  readonly port?: number;
  /** Mine each transaction at once; default true (tests need no waiting, block numbers are deterministic). */
  readonly automine?: boolean;
  /** Also mine a block every `intervalMs` ms without traffic; default 0 (off). */
  readonly intervalMs?: number;
}

/**
 * A local EVM chain (`hardhat node`, EDR) on 127.0.0.1 with Ferry's contracts deployed and the accounts funded:
 * solver 1,000,000 USDC, user 10,000 USDC, every account 10,000 ETH. Helpers: `mine(n)`, `snapshot()` and
 * `revert(id)` (reorgs), `setAutomine(on)`, `setIntervalMining(ms)`, `request(method, params)`.
 */
export interface Devnet extends LocalChain {
  readonly accounts: DevnetAccounts;
  readonly deployment: DevnetDeployment;
}

/**
 * Starts one devnet and deploys the contracts. On a fresh chain the addresses are the ones the config files list
 * (depository 0x5FbDB…, USDC 0xe7f17…, WETH 0x9fE46…). Call `stop()` in `afterAll`; a chain left running is
 * killed when the test process exits, however it exits.
 *
 * @example const devnet = await startDevnet({ chainId: 31337 }); … await devnet.stop();
 */
export async function startDevnet(options: StartDevnetOptions): Promise<Devnet> {
  const chain = await startLocalChain(options);
  try {
    const deployment = await deployDevnet({ rpcUrl: chain.rpcUrl, chainId: chain.chainId });
    return { ...chain, accounts: DEVNET_ACCOUNTS, deployment };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

/**
 * Starts devnets 31337 and 31338 in parallel (same options for both). When one fails the other is stopped.
 *
 * @example const [a, b] = await startDevnets(); … await Promise.all([a.stop(), b.stop()]);
 */
export async function startDevnets(
  options: Omit<StartDevnetOptions, 'chainId' | 'port'> = {},
): Promise<[Devnet, Devnet]> {
  const started = await Promise.allSettled(
    DEVNET_CHAIN_IDS.map((chainId) => startDevnet({ ...options, chainId })),
  );
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : null)));
    throw failed.reason;
  }
  const [a, b] = started.map((result) => (result as PromiseFulfilledResult<Devnet>).value);
  return [a, b];
}
