import { createWalletClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { DEVNET_ACCOUNTS } from '../scripts/devnet/deploy-devnet.js';
import { startDevnet } from '../scripts/devnet/devnets.js';
import { EvmClients } from '../src/solver/evm-clients.js';
import { TransactionJournal } from '../src/solver/transaction-journal.js';
import { benchConfig } from './bench-app.js';
import { median, now, percentile, type ScratchDatabase } from './support.js';

export interface JournalFigures {
  readonly transactions: number;
  /** viem's sendTransaction (nonce, gas and fees read from the node, signed, sent): the anchor. */
  readonly plainMedianMs: number;
  /** The journal: gas and fees read, nonce reserved and the signed transaction stored in PostgreSQL, then sent. */
  readonly journaledMedianMs: number;
  readonly journaledP99Ms: number;
  /** journaled ÷ plain, medians. */
  readonly ratio: number;
}

/**
 * The journal's cost per transaction, against the path it replaced, in the same run on one local chain: `n`
 * zero-value transfers to self sent one after another with viem's `sendTransaction`, then `n` recorded and released
 * through `TransactionJournal` on the scratch PostgreSQL database. Both stop when the node has the transaction
 * (automine: also mined), not at a receipt.
 */
export async function measureJournalCost(scratch: ScratchDatabase, n: number): Promise<JournalFigures> {
  const chain = await startDevnet({ chainId: 31338 });
  try {
    const config = benchConfig(scratch.url, { DEVNET_B_RPC_URL: chain.rpcUrl });
    const info = config.chains.chain(31338);
    const account = privateKeyToAccount(DEVNET_ACCOUNTS.solver.privateKey);
    const wallet = createWalletClient({ account, transport: http(chain.rpcUrl) });
    const journal = new TransactionJournal(scratch.db, new EvmClients(), account);
    const intent = { to: account.address, value: 0n, data: '0x' as const };
    const plain: number[] = [];
    const journaled: number[] = [];
    for (let round = 0; round < 2; round++) {
      // Round 0 warms both paths up (JIT, connections); round 1 is measured.
      for (let i = 0; i < (round === 0 ? 10 : n); i++) {
        const started = now();
        await wallet.sendTransaction({ account, chain: null, ...intent });
        if (round === 1) plain.push(now() - started);
      }
      for (let i = 0; i < (round === 0 ? 10 : n); i++) {
        const started = now();
        const entry = await journal.record(info, intent, { purpose: 'gap' });
        await journal.release(info, entry);
        if (round === 1) journaled.push(now() - started);
      }
    }
    const plainMedianMs = median(plain);
    const journaledMedianMs = median(journaled);
    return {
      transactions: n,
      plainMedianMs,
      journaledMedianMs,
      journaledP99Ms: percentile(journaled, 99),
      ratio: journaledMedianMs / plainMedianMs,
    };
  } finally {
    await chain.stop();
  }
}
