import type { Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainClients } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';

/**
 * Mines `chain`'s blocks itself (automine off) until the returned function is called, and arms `trap` in front of
 * every solver transaction waiting in the pool (a call with the word 1 and a higher tip: first in the block), then
 * disarms it in the next block (the word 0). The demo user is the attacker. A call that fails on a busy machine does
 * not stop the loop: the chain mines only here, and a trap left armed is disarmed in a later round.
 */
export function frontRunSolver(clients: ChainClients, chain: Devnet, trap: Address): () => Promise<void> {
  const reader = clients.reader(chain.chainId);
  const rpc = (method: string, params: unknown[] = []) =>
    reader.request({ method, params } as never) as Promise<unknown>;
  const attacker = privateKeyToAccount(chain.accounts.user.privateKey);
  const arm = async (word: bigint) => {
    const tip = (await reader.getGasPrice()) * 10n;
    await clients.wallet(chain.chainId).sendTransaction({
      account: attacker,
      chain: null,
      to: trap,
      data: `0x${word.toString(16).padStart(64, '0')}`,
      gas: 60_000n,
      maxPriorityFeePerGas: tip,
      maxFeePerGas: tip * 3n,
    });
  };
  let stopped = false;
  let armed = false;
  const running = (async () => {
    await rpc('evm_setAutomine', [false]);
    while (!stopped) {
      try {
        const pending = (await rpc('eth_getBlockByNumber', ['pending', true])) as {
          transactions: { from: string }[];
        };
        const solverWaits = pending.transactions.some(
          (tx) => tx.from.toLowerCase() === chain.accounts.solver.address.toLowerCase(),
        );
        if (solverWaits && !armed) {
          await arm(1n);
          armed = true;
        }
        await rpc('evm_mine');
        if (armed) {
          await arm(0n);
          armed = false;
          await rpc('evm_mine');
        }
      } catch {
        // Gone on with in the next round.
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await rpc('evm_setAutomine', [true]);
  })();
  return async () => {
    stopped = true;
    await running;
  };
}
