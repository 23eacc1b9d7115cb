import {
  DEVNET_ACCOUNTS,
  type DevnetAccounts,
  type DevnetDeployment,
  deployDevnet,
} from './deploy-devnet.js';
import { type LocalChain, startLocalChain } from './local-chain.js';

/** The two development chains (`configs/chains.{development,test}.json`: ferry-devnet-a and ferry-devnet-b). */
export const DEVNET_CHAIN_IDS = [31337, 31338] as const;

export interface StartDevnetOptions {
  readonly chainId: number;
  /** Loopback port; a free one when absent. */
  readonly port?: number;
  /** Mine each transaction at once; default true (no waiting, deterministic block numbers). */
  readonly automine?: boolean;
  /** Also mine a block every `intervalMs` ms without traffic; default 0 (off). */
  readonly intervalMs?: number;
}

/**
 * A local EVM chain (`hardhat node`, EDR) on 127.0.0.1 with Ferry's contracts deployed and the accounts funded:
 * solver 1,000,000 USDC, user 10,000 USDC, every account 10,000 ETH.
 */
export interface Devnet extends LocalChain {
  readonly accounts: DevnetAccounts;
  readonly deployment: DevnetDeployment;
}

/**
 * Starts one devnet and deploys the contracts. On a fresh chain the addresses are the ones the config files list
 * (depository 0x5FbDB…, USDC 0xe7f17…, WETH 0x9fE46…). The chain is stopped if the deployment fails.
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

/** Starts devnets 31337 and 31338 in parallel (same options for both). When one fails the other is stopped. */
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
