import { Logger } from '@nestjs/common';
import { ConfigError } from '../config/config.error.js';
import type { ChainInfo } from './chain.js';
import { verifyRpcChainId } from './chain-checked-fetch.js';

/**
 * Production start-up: asks every EVM chain's RPC for its chain id and stops start-up (a ConfigError naming the
 * variable, never the URL) when one serves another chain, so a copy-pasted URL is caught before anything is read. An
 * RPC that does not answer does not stop start-up (a provider outage must not prevent a restart): it is checked
 * before its first read instead, as every RPC is (`chainCheckedFetch`).
 *
 * @example if (config.environment === 'production') await assertRpcChainIds(config.chains.all());
 */
export async function assertRpcChainIds(chains: readonly ChainInfo[]): Promise<void> {
  const logger = new Logger('Chains');
  const evm = chains.filter((chain) => chain.vmType === 'evm' && chain.rpcUrl);
  const checks = await Promise.all(
    evm.map((chain) =>
      verifyRpcChainId(chain.rpcUrl!, chain.id).then(
        (check) => ({ chain, check }),
        () => {
          logger.warn(
            `chain ${chain.id}'s RPC did not answer eth_chainId at start-up: checked before its first read`,
          );
          return { chain, check: null };
        },
      ),
    ),
  );
  const wrong = checks.find(({ check }) => check?.status === 'wrong-chain');
  if (wrong) {
    throw new ConfigError(
      wrong.chain.rpcUrlVariable ?? `the rpcUrl of chain ${wrong.chain.id}`,
      `points at a node of chain ${wrong.check!.servedChainId}, not chain ${wrong.chain.id} (its eth_chainId): set it to chain ${wrong.chain.id}'s RPC`,
    );
  }
}
