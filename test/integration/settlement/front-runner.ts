import type { Address, Hex } from 'viem';
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

/**
 * Deploys (from the demo user) a contract that is armed and disarmed by a call with the word 1 or 0, and burns all the
 * gas it is given (INVALID) while armed; while disarmed it accepts what it is sent. Who arms it: `anyone` (any call
 * with calldata; a plain transfer, as a give-back is, is never taken for one), or the demo user only (its `owner`: a
 * call from anyone else, with or without data, is a payment). `frontRunSolver` arms it in front of a solver's payment
 * to it: the payment passes the estimate, then reverts having burnt its whole gas limit. Its address.
 */
export async function deployGasTrap(
  clients: ChainClients,
  chain: Devnet,
  armedBy: 'anyone' | 'owner',
): Promise<Address> {
  // Is this call one that arms or disarms: CALLDATASIZE (anyone), or PUSH20 owner; CALLER; EQ (the owner).
  const arming = armedBy === 'anyone' ? '36' : `73${chain.accounts.user.address.slice(2).toLowerCase()}3314`;
  const at = (offset: number) => (arming.length / 2 + offset).toString(16).padStart(2, '0');
  // arming; PUSH1 set; JUMPI; PUSH1 0; SLOAD; PUSH1 burn; JUMPI; STOP;
  // burn: JUMPDEST; INVALID; set: JUMPDEST; PUSH1 0; CALLDATALOAD; PUSH1 0; SSTORE; STOP
  const runtime = `${arming}60${at(12)}5760005460${at(10)}57005bfe5b60003560005500`;
  const init = `0x60${(runtime.length / 2).toString(16).padStart(2, '0')}80600b6000396000f3${runtime}` as Hex;
  const hash = await clients.wallet(chain.chainId).sendTransaction({
    account: privateKeyToAccount(chain.accounts.user.privateKey),
    chain: null,
    data: init,
  });
  return (await clients.reader(chain.chainId).waitForTransactionReceipt({ hash })).contractAddress!;
}
