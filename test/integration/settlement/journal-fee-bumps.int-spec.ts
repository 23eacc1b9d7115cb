import { type Hash, parseTransaction, toHex } from 'viem';
import type { ChainInfo } from '../../../src/chains/chain.js';
import type { ChainRegistry } from '../../../src/chains/chain-registry.js';
import { loadAppConfig } from '../../../src/config/app-config.js';
import type { Database } from '../../../src/database/database.js';
import { EvmClients } from '../../../src/solver/evm-clients.js';
import { FeeBumps } from '../../../src/solver/fee-bumps.js';
import { JournalSender } from '../../../src/solver/journal-sender.js';
import { TransactionJournal } from '../../../src/solver/transaction-journal.js';
import { UnmatchedReturns } from '../../../src/solver/unmatched-returns.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';
import {
  FlakyClients,
  fundedKey,
  InterceptedClients,
  keysFrom,
  rpc,
  unmatchedDeposit,
} from './journal-support.js';

const freshKey = keysFrom(10);

/** Clients of which one read can be held back (a slow RPC answer) while the test does something else meanwhile. */
class GatedClients extends InterceptedClients {
  private gate: {
    readonly method: string;
    readonly opened: Promise<void>;
    readonly arrive: () => void;
  } | null = null;

  /** The next call of `method` waits until `release`; `reached` resolves when that call is made. */
  holdNext(method: string): { readonly reached: Promise<void>; readonly release: () => void } {
    let arrive!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    const opened = new Promise<void>((resolve) => (release = resolve));
    this.gate = { method, opened, arrive };
    return { reached, release };
  }

  protected intercept(property: string | symbol, value: unknown): unknown {
    const gate = this.gate;
    if (!gate || property !== gate.method) return value;
    this.gate = null;
    return async (...args: unknown[]) => {
      gate.arrive();
      await gate.opened;
      return (value as (...args: unknown[]) => unknown)(...args);
    };
  }
}
const GWEI = 10n ** 9n;
/** Replacements after a second, whether the fee cap is below the base fee or the tip too low to be mined. */
const BUMP_OPTIONS = { bumpAfterMs: 1_000, tipBumpAfterMs: 1_000 };

/**
 * Payments signed before the chain's base fee rose past their fee cap, on a real local chain and real PostgreSQL:
 * they must not stall every later transaction of their key (docs/settlement.md, "Transaction journal").
 */
describe('transaction journal when the base fee rises', () => {
  let database: MigratedDatabase;
  let db: Database;
  let chain: Devnet;
  let chains: ChainRegistry;
  let destination: ChainInfo;

  beforeAll(async () => {
    [database, chain] = await Promise.all([migratedDatabase('postgres'), startDevnet({ chainId: 31338 })]);
    db = database.db;
    chains = loadAppConfig({
      ENVIRONMENT: 'test',
      DATA_DIR: 'memory://journal-fee-bumps',
      DEVNET_B_RPC_URL: chain.rpcUrl,
    }).chains;
    destination = chains.chain(31338);
  }, 60_000);
  afterEach(async () => {
    // The next test starts at Hardhat's usual base fee.
    await setBaseFee(GWEI);
  });
  afterAll(async () => {
    await chain?.stop();
    await database?.close();
  });

  /** The chain's base fee from the next block on (that block is mined now, empty). */
  const setBaseFee = async (wei: bigint) => {
    await rpc(chain.rpcUrl, 'hardhat_setNextBlockBaseFeePerGas', [toHex(wei)]);
    await rpc(chain.rpcUrl, 'evm_mine', []);
  };
  const journalWith = async (clients: EvmClients) => {
    const account = await fundedKey(freshKey, chain.rpcUrl);
    return new TransactionJournal(db, clients, account, BUMP_OPTIONS);
  };
  /** The unmatched-deposit returns, paid through `journal` and read through `clients` (a 300 ms settle wait). */
  const returnsWith = (journal: TransactionJournal, clients: EvmClients) =>
    new UnmatchedReturns(db, chains, journal, { leaseMs: 60_000, batchSize: 10, settleWaitMs: 300, clients });
  const reader = new EvmClients().of.bind(new EvmClients());
  const minedCount = async (journal: TransactionJournal) =>
    BigInt(await reader(destination).getTransactionCount({ address: journal.address, blockTag: 'latest' }));
  const receiptOf = (hash: Hash) =>
    reader(destination)
      .getTransactionReceipt({ hash })
      .catch(() => null);
  const pay = (journal: TransactionJournal, purpose: 'refund' | 'return' | 'claim', jobKey: string) =>
    journal.record(
      destination,
      { to: chain.accounts.user.address, value: 12_345n, data: '0x0f' },
      { purpose, jobKey },
    );
  /** Pumps the journal (as the solver's loop does) until `done` or `ms` pass. */
  const pumpUntil = async (journal: TransactionJournal, done: () => Promise<boolean>, ms: number) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && !(await done())) {
      await journal.pump([destination]).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  it('a refund signed below a base fee that has since risen is replaced by a fee-bumped copy of itself: it mines once, and the return behind it follows', async () => {
    const journal = await journalWith(new EvmClients());
    const refund = await pay(journal, 'refund', 'bump:refund');
    const signedAt = parseTransaction(refund.rawTx).maxFeePerGas!;
    // The base fee jumps to ten times what the refund may pay: no block can take it.
    await setBaseFee(signedAt * 10n);
    await journal.release(destination, refund);
    const later = await pay(journal, 'return', 'bump:later');
    await journal.release(destination, later);

    await pumpUntil(journal, async () => (await minedCount(journal)) > later.nonce, 20_000);

    // The later payment of the key was not left behind the refund.
    expect(await receiptOf(later.txHash)).not.toBeNull();
    expect(await minedCount(journal)).toBe(later.nonce + 1n);
    // The refund's nonce went to exactly one transaction of the journal's: the refund or a copy of it, never both.
    const settled = await journal.settle(destination, refund);
    expect(settled.kind).toBe('mined');
    const entries = await journal.entriesOf('bump:refund');
    const mined = entries.filter((entry) => entry.state === 'mined');
    expect(mined).toHaveLength(1);
    expect(entries.every((entry) => ['mined', 'dropped'].includes(entry.state))).toBe(true);
    const paid = mined[0];
    expect(paid).toMatchObject({
      nonce: refund.nonce,
      to: refund.to,
      value: refund.value,
      data: refund.data,
    });
    const replacement = parseTransaction(paid.rawTx);
    expect(replacement).toMatchObject({
      to: refund.to.toLowerCase(),
      value: refund.value,
      data: refund.data,
    });
    expect(replacement.maxFeePerGas).toBeGreaterThan(signedAt * 10n);
  }, 40_000);

  it('a refund whose tip is too low to be mined (every block filled by higher tips) while its fee cap covers the base fee is replaced with a higher tip: it mines once, and the return behind it follows', async () => {
    const journal = await journalWith(new EvmClients());
    // Blocks the test mines, one transfer each (a 30,000 gas limit), at a steady base fee of 1 gwei; a rival queues
    // three hundred transfers tipping 1.2 gwei, more than the refund's 1 gwei: it takes every block.
    await setBaseFee(GWEI);
    await rpc(chain.rpcUrl, 'evm_setAutomine', [false]);
    await rpc(chain.rpcUrl, 'evm_setBlockGasLimit', [toHex(30_000)]);
    try {
      const rival = await fundedKey(freshKey, chain.rpcUrl);
      for (let nonce = 0; nonce < 300; nonce++) {
        const raw = await rival.signTransaction({
          type: 'eip1559',
          chainId: destination.id,
          to: rival.address,
          value: 0n,
          nonce,
          gas: 21_000n,
          maxFeePerGas: 10n * GWEI,
          maxPriorityFeePerGas: (12n * GWEI) / 10n,
        });
        await rpc(chain.rpcUrl, 'eth_sendRawTransaction', [raw]);
      }
      const refund = await pay(journal, 'refund', 'tip:refund');
      const signed = parseTransaction(refund.rawTx);
      expect(signed.maxPriorityFeePerGas).toBeLessThan((12n * GWEI) / 10n);
      expect(signed.maxFeePerGas).toBeGreaterThan(2n * GWEI);
      await journal.release(destination, refund);
      const later = await pay(journal, 'return', 'tip:later');
      await journal.release(destination, later);

      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (await minedCount(journal)) <= later.nonce) {
        await journal.pump([destination]).catch(() => undefined);
        await rpc(chain.rpcUrl, 'hardhat_setNextBlockBaseFeePerGas', [toHex(GWEI)]);
        await rpc(chain.rpcUrl, 'evm_mine', []);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }

      // The rival still had transfers queued: the refund and the return went in on a higher tip, not an idle block.
      const rivalMined = await reader(destination).getTransactionCount({
        address: rival.address,
        blockTag: 'latest',
      });
      expect(rivalMined).toBeLessThan(300);
      expect(await minedCount(journal)).toBe(later.nonce + 1n);
      expect(await journal.settle(destination, refund)).toMatchObject({ kind: 'mined' });
      const entries = await journal.entriesOf('tip:refund');
      const mined = entries.filter((entry) => entry.state === 'mined');
      expect(mined).toHaveLength(1);
      expect(entries.every((entry) => ['mined', 'dropped'].includes(entry.state))).toBe(true);
      expect(mined[0]).toMatchObject({
        nonce: refund.nonce,
        to: refund.to,
        value: refund.value,
        data: refund.data,
      });
      const paid = parseTransaction(mined[0].rawTx);
      expect(paid.maxPriorityFeePerGas).toBeGreaterThan((12n * GWEI) / 10n);
      expect(paid.maxFeePerGas).toBeLessThanOrEqual(BigInt(destination.gas.defaultPriceWei) * 100n);
    } finally {
      await rpc(chain.rpcUrl, 'evm_setBlockGasLimit', [toHex(60_000_000)]);
      await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    }
  }, 50_000);

  it("a spike past the chain's fee cap replaces nothing: the payment waits, its entry says why, and it mines once the base fee falls", async () => {
    const journal = await journalWith(new EvmClients());
    const claim = await pay(journal, 'claim', 'cap:claim');
    // Devnet B's cap is 100 × its default gas price (1 gwei): a base fee of 500 gwei is beyond it.
    await setBaseFee(500n * GWEI);
    await journal.release(destination, claim);
    await pumpUntil(journal, async () => false, 4_000);

    const waiting = await db.query<{ state: string; fee_capped: string | null }>(
      `SELECT state, fee_capped FROM solver_transactions WHERE job_key = 'cap:claim' ORDER BY id`,
    );
    expect(waiting.rows).toEqual([
      { state: 'broadcast', fee_capped: expect.stringMatching(/cap of 100000000000/) },
    ]);
    expect(await minedCount(journal)).toBe(claim.nonce);

    await setBaseFee(GWEI);
    await pumpUntil(journal, async () => (await minedCount(journal)) > claim.nonce, 10_000);
    expect(await receiptOf(claim.txHash)).not.toBeNull();
  }, 30_000);

  it("a payment prepared while the base fee is above the chain's fee cap is signed at the cap, not at the spike: it waits, its entry says why, and it mines once the base fee falls", async () => {
    const journal = await journalWith(new EvmClients());
    const cap = BigInt(destination.gas.defaultPriceWei) * 100n;
    await setBaseFee(500n * GWEI);
    const claim = await pay(journal, 'claim', 'spike:claim');
    expect(parseTransaction(claim.rawTx).maxFeePerGas).toBeLessThanOrEqual(cap);
    await journal.release(destination, claim);
    await pumpUntil(journal, async () => (await minedCount(journal)) > claim.nonce, 4_000);

    expect(await minedCount(journal)).toBe(claim.nonce);
    const waiting = await db.query<{ state: string; fee_capped: string | null }>(
      `SELECT state, fee_capped FROM solver_transactions WHERE job_key = 'spike:claim' ORDER BY id`,
    );
    expect(waiting.rows).toEqual([
      { state: 'broadcast', fee_capped: expect.stringMatching(/cap of 100000000000/) },
    ]);

    // The payment was journaled and released, not held or dropped: it mines when fees fall, at no more than the cap.
    await setBaseFee(GWEI);
    await pumpUntil(journal, async () => (await minedCount(journal)) > claim.nonce, 10_000);
    const settled = await journal.settle(destination, claim);
    expect(settled).toMatchObject({ kind: 'mined', entry: { id: claim.id } });
    if (settled.kind === 'mined') expect(settled.receipt.effectiveGasPrice).toBeLessThanOrEqual(cap);
  }, 30_000);

  it.each([
    ['its replacement mines', false],
    [
      'the original mines after its replacement was journaled (whose broadcast was lost), rebroadcast by anyone',
      true,
    ],
  ])(
    'a return whose fee was bumped is done once, with the transaction that mined, when %s: never paid twice',
    async (_, originalMines) => {
      const clients = new FlakyClients();
      const journal = await journalWith(clients);
      const returns = returnsWith(journal, clients);
      const { depositor, amount, key, row } = await unmatchedDeposit(db, 7);
      // The next block's base fee is 50 gwei: the return, signed at the latest block's fees, cannot go in it.
      await rpc(chain.rpcUrl, 'hardhat_setNextBlockBaseFeePerGas', [toHex(50n * GWEI)]);
      await returns.work((error) => {
        throw error;
      });
      const [original] = await journal.entriesOf(key);
      expect((await row()).state).toBe('sent');

      // The replacement is journaled; with `originalMines`, its broadcast is lost (a crash right after the write).
      if (originalMines) clients.failing.add('request');
      await pumpUntil(
        journal,
        async () =>
          (await journal.entriesOf(key)).length > 1 &&
          (originalMines || (await minedCount(journal)) > original.nonce),
        10_000,
      );
      clients.failing.clear();
      const [, replacement] = await journal.entriesOf(key);
      expect(replacement).toMatchObject({ nonce: original.nonce, to: original.to, value: amount });
      if (originalMines) {
        // The base fee falls, and the original's bytes (public since its first broadcast) are sent again.
        await rpc(chain.rpcUrl, 'hardhat_setNextBlockBaseFeePerGas', [toHex(GWEI)]);
        await rpc(chain.rpcUrl, 'eth_sendRawTransaction', [original.rawTx]);
      }
      const paid = originalMines ? original : replacement;
      expect(await receiptOf(paid.txHash)).not.toBeNull();

      for (let round = 0; round < 20 && (await row()).state === 'sent'; round++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await returns.work(() => undefined);
        await journal.pump([destination]);
      }
      expect(await row()).toEqual({ state: 'done', refund_tx_hash: paid.txHash });
      const states = (await journal.entriesOf(key)).map((entry) => [entry.txHash, entry.state]);
      expect(states).toEqual([
        [original.txHash, originalMines ? 'mined' : 'dropped'],
        [replacement.txHash, originalMines ? 'dropped' : 'mined'],
      ]);
      expect(await reader(destination).getBalance({ address: depositor })).toBe(amount);
      expect(await minedCount(journal)).toBe(original.nonce + 1n);
    },
    40_000,
  );

  it("a return whose settle read its nonce's copies just before the pump journaled a fee-bumped replacement, which then mined, is done with that replacement: the replacement is not taken for a stranger's transaction, and the depositor is paid once", async () => {
    // One process: the return job waits for its transaction while the solver's pump loop bumps it. The job's settle
    // reads the nonce's copies (only the original yet), then its receipt read is slow; meanwhile the pump finds the
    // return unmined past its tip wait, journals and sends a replacement, and a block takes the replacement.
    const clients = new GatedClients();
    const journal = await journalWith(clients);
    const returns = returnsWith(journal, clients);
    const { depositor, amount, key, row } = await unmatchedDeposit(db, 8);
    await rpc(chain.rpcUrl, 'evm_setAutomine', [false]);
    try {
      await returns.work((error) => {
        throw error;
      });
      const [original] = await journal.entriesOf(key);
      expect((await row()).state).toBe('sent');
      // Past the tip wait (and the pump's two seconds between sends of one entry).
      await new Promise((resolve) => setTimeout(resolve, 2_100));

      const slowReceipt = clients.holdNext('getTransactionReceipt');
      const job = returns.work(() => undefined);
      await slowReceipt.reached;
      await journal.pump([destination]);
      const [, replacement] = await journal.entriesOf(key);
      expect(replacement).toMatchObject({ nonce: original.nonce, to: original.to, value: amount });
      await rpc(chain.rpcUrl, 'evm_mine', []);
      expect(await receiptOf(replacement.txHash)).not.toBeNull();
      slowReceipt.release();
      await job;

      for (let round = 0; round < 24 && (await row()).state === 'sent'; round++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await returns.work(() => undefined);
        await rpc(chain.rpcUrl, 'evm_mine', []);
      }
      expect(await reader(destination).getBalance({ address: depositor })).toBe(amount);
      expect(await row()).toEqual({ state: 'done', refund_tx_hash: replacement.txHash });
      const states = (await journal.entriesOf(key)).map((entry) => [entry.txHash, entry.state]);
      expect(states).toEqual([
        [original.txHash, 'dropped'],
        [replacement.txHash, 'mined'],
      ]);
      expect(await minedCount(journal)).toBe(original.nonce + 1n);
    } finally {
      await rpc(chain.rpcUrl, 'evm_setAutomine', [true]);
    }
  }, 40_000);

  it('two instances finding the same stuck payment at once journal one replacement between them', async () => {
    const account = await fundedKey(freshKey, chain.rpcUrl);
    const clients = new EvmClients();
    const journal = new TransactionJournal(db, clients, account, { bumpAfterMs: 60_000 });
    const refund = await pay(journal, 'refund', 'race:refund');
    await setBaseFee(parseTransaction(refund.rawTx).maxFeePerGas! * 10n);
    await journal.release(destination, refund);
    const instance = () =>
      new FeeBumps(db, clients, new JournalSender(db, clients, account), account, {
        afterMs: 0,
        tipAfterMs: 0,
      });
    const bumped = await Promise.all([1, 2, 3].map(() => instance().bumpIfStuck(destination, refund)));

    expect(bumped.filter((entry) => entry !== null)).toHaveLength(1);
    const entries = await journal.entriesOf('race:refund');
    expect(entries).toHaveLength(2);
    const settled = await journal.awaitSettled(destination, refund, { maxWaitMs: 5_000 });
    expect(settled).toMatchObject({ kind: 'mined', entry: { id: entries[1].id } });
  }, 30_000);
});
