import { type Hash, parseTransaction, toHex } from 'viem';
import type { ChainInfo } from '../../../src/chains/chain.js';
import type { ChainRegistry } from '../../../src/chains/chain-registry.js';
import { loadAppConfig } from '../../../src/config/app-config.js';
import type { Database } from '../../../src/database/database.js';
import { EvmClients } from '../../../src/solver/evm-clients.js';
import { PaymentGasTooHigh, TransactionJournal } from '../../../src/solver/transaction-journal.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { RpcProxy } from '../../support/rpc-proxy.js';
import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';
import { UnmatchedReturns } from '../../../src/solver/unmatched-returns.js';
import {
  FlakyClients,
  fundedKey,
  InterceptedClients,
  keysFrom,
  rpc,
  unmatchedDeposit,
} from './journal-support.js';
import { feeEstimatesCapped } from '../../../src/metrics/process-metrics.js';

/** `ferry_journal_fee_estimates_capped_total` of a chain, as a scrape would read it. */
const cappedEstimates = async (chainId: number): Promise<number> =>
  (await feeEstimatesCapped.get()).values.find((value) => value.labels.chain === String(chainId))?.value ?? 0;

const freshKey = keysFrom(10);

/** Clients whose node answers a gas price of 10,000 gwei (compromised, or in a spike past the chain's cap). */
class GreedyGasPrice extends InterceptedClients {
  protected intercept(property: string | symbol, value: unknown): unknown {
    return property === 'getGasPrice' ? () => Promise.resolve(10n ** 13n) : value;
  }
}

/** Attacks on the transaction journal itself, on a real local chain and real PostgreSQL. */
describe('transaction journal under attack', () => {
  let database: MigratedDatabase;
  let db: Database;
  let chain: Devnet;
  let destination: ChainInfo;
  /** Chain 31337, whose RPC is down (nothing listens on its port). */
  let down: ChainInfo;
  let chains: ChainRegistry;

  beforeAll(async () => {
    [database, chain] = await Promise.all([migratedDatabase('postgres'), startDevnet({ chainId: 31338 })]);
    db = database.db;
    chains = loadAppConfig({
      ENVIRONMENT: 'test',
      DATA_DIR: 'memory://journal-attacks',
      DEVNET_A_RPC_URL: 'http://127.0.0.1:9',
      DEVNET_B_RPC_URL: chain.rpcUrl,
    }).chains;
    destination = chains.chain(31338);
    down = chains.chain(31337);
  }, 60_000);
  afterAll(async () => {
    await chain?.stop();
    await database?.close();
  });

  /** A journal with a key of its own, funded (10 ETH). */
  const journalWith = async (clients: EvmClients) => {
    const account = await fundedKey(freshKey, chain.rpcUrl);
    return new TransactionJournal(db, clients, account);
  };
  const transactionCount = async (journal: TransactionJournal) =>
    BigInt(
      await new EvmClients()
        .of(destination)
        .getTransactionCount({ address: journal.address, blockTag: 'latest' }),
    );
  const receiptOf = (hash: Hash) =>
    new EvmClients()
      .of(destination)
      .getTransactionReceipt({ hash })
      .catch(() => null);

  it('an abandon whose nonce filler cannot be sent (an RPC error after the entry was voided) leaves no nonce gap: the filler goes out, and the transactions signed after it mine', async () => {
    const clients = new FlakyClients();
    const journal = await journalWith(clients);
    const pay = (jobKey: string) =>
      journal.record(
        destination,
        { to: chain.accounts.user.address, value: 1n, data: '0x' },
        { purpose: 'fill', jobKey },
      );
    // A batch of two fills: the first one's request refuses it (it must never leave), the second one's takes it.
    const refused = await pay('gap:refused');
    const taken = await pay('gap:taken');
    expect(taken.nonce).toBe(refused.nonce + 1n);

    // Abandoning the refused fill: its fee read fails (an RPC blip) after the entry was voided.
    clients.failing.add('estimateFeesPerGas');
    await expect(journal.abandon(destination, refused)).rejects.toThrow(/fetch failed/);
    clients.failing.clear();
    // The batch goes on and releases the later fill (fill-batch.ts continues after a failed abandon).
    await journal.release(destination, taken);

    // Whatever the caller does next (its job retries: fill.ts skips a void fill), and however long the pump runs,
    // the refused fill's nonce must be filled so the later payment can mine.
    const retry = (await journal.entriesOf('gap:refused')).find(
      (entry) => entry.purpose === 'fill' && entry.state !== 'void',
    );
    if (retry?.state === 'signed') await journal.abandon(destination, retry);
    const deadline = Date.now() + 8_000;
    while (Date.now() < deadline && (await transactionCount(journal)) <= taken.nonce) {
      await journal.pump([destination]);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await receiptOf(taken.txHash)).not.toBeNull();
    expect(await transactionCount(journal)).toBe(taken.nonce + 1n);
    // The refused fill itself never left.
    expect(await receiptOf(refused.txHash)).toBeNull();
  }, 30_000);

  it("one chain whose RPC is down (or that holds a hundred open entries) does not stop the pump re-sending another chain's nonce filler: the transactions behind it mine", async () => {
    const clients = new FlakyClients();
    const journal = await journalWith(clients);
    const refused = await journal.record(
      destination,
      { to: chain.accounts.user.address, value: 1n, data: '0x' },
      { purpose: 'fill', jobKey: 'pump:refused' },
    );
    const taken = await journal.record(
      destination,
      { to: chain.accounts.user.address, value: 1n, data: '0x' },
      { purpose: 'fill', jobKey: 'pump:taken' },
    );
    await journal.release(destination, taken);
    // The refused fill is abandoned; its filler's broadcast is lost (the node answers nothing): only the pump sends
    // it again, no job waits for a filler.
    clients.failing.add('request');
    await journal.abandon(destination, refused);
    clients.failing.clear();
    // Meanwhile chain 31337's RPC is down, with a hundred of this key's transactions open there (sent before).
    await db.query(
      `INSERT INTO solver_transactions
         (chain_id, account, nonce, purpose, to_address, value, data, tx_hash, raw_tx, state, updated_at)
       SELECT 31337, $1, n, 'fill', $1, 0, '0x', '0x' || lpad(to_hex(n), 64, '0'), '0x', 'broadcast',
              now() - interval '1 minute'
         FROM generate_series(1, 100) AS n`,
      [journal.address],
    );
    const deadline = Date.now() + 8_000;
    while (Date.now() < deadline && (await transactionCount(journal)) <= taken.nonce) {
      await journal.pump([down, destination]).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await transactionCount(journal)).toBe(taken.nonce + 1n);
    expect(await receiptOf(taken.txHash)).not.toBeNull();
    expect(await receiptOf(refused.txHash)).toBeNull();
  }, 30_000);

  it('a receipt a lagging RPC replica does not have yet is not taken for "its nonce went to another transaction": a mined payment is never called dropped (its job would pay again)', async () => {
    // A load-balanced RPC: the receipt of the payment comes from a replica a block behind for its first second,
    // the account's transaction count from one that is up to date.
    let lagUntil = 0;
    const proxy = new RpcProxy(chain.rpcUrl, (method) =>
      method === 'eth_getTransactionReceipt' && Date.now() < lagUntil
        ? { kind: 'rewrite-result', rewrite: () => null }
        : null,
    );
    const url = await proxy.start();
    try {
      const behindProxy = { ...destination, rpcUrl: url };
      const journal = await journalWith(new EvmClients());
      const refund = await journal.record(
        behindProxy,
        { to: chain.accounts.user.address, value: 12345n, data: '0x' },
        { purpose: 'refund', jobKey: 'lag:refund' },
      );
      lagUntil = Date.now() + 1_000;
      await journal.release(behindProxy, refund); // automine: it is in a block at once
      const first = await journal.settle(behindProxy, refund);
      expect(first.kind).not.toBe('dropped');
      const settled = await journal.awaitSettled(behindProxy, refund, { maxWaitMs: 5_000 });
      expect(settled.kind).toBe('mined');
      expect((await journal.entriesOf('lag:refund')).map((entry) => entry.state)).toEqual(['mined']);
    } finally {
      await proxy.stop();
    }
  }, 30_000);

  it("a node answering a huge fee estimate (compromised or misconfigured) cannot make the journal bid above the chain's fee cap: a refund, and the filler of an abandoned one, are signed within the cap and mine", async () => {
    // The RPC says block builders want a 10,000 gwei tip: a refund signed with it pays about 0.2 ETH of gas.
    const proxy = new RpcProxy(chain.rpcUrl, (method) =>
      method === 'eth_maxPriorityFeePerGas'
        ? { kind: 'rewrite-result', rewrite: () => toHex(10n ** 13n) }
        : null,
    );
    const url = await proxy.start();
    try {
      const behindProxy = { ...destination, rpcUrl: url };
      // Devnet B's cap: 100 × its default gas price (1 gwei).
      const cap = BigInt(destination.gas.defaultPriceWei) * 100n;
      const journal = await journalWith(new EvmClients());
      const cappedBefore = await cappedEstimates(destination.id);
      const intent = { to: chain.accounts.user.address, value: 12_345n, data: '0x' as const };
      const refund = await journal.record(behindProxy, intent, {
        purpose: 'refund',
        jobKey: 'greedy:refund',
      });
      const refused = await journal.record(behindProxy, intent, {
        purpose: 'refund',
        jobKey: 'greedy:refused',
      });
      await journal.release(behindProxy, refund);
      const filler = await journal.abandon(behindProxy, refused);

      for (const entry of [refund, filler]) {
        const settled = await journal.awaitSettled(behindProxy, entry, { maxWaitMs: 5_000 });
        expect(settled).toMatchObject({ kind: 'mined', entry: { id: entry.id } });
        if (settled.kind !== 'mined') continue;
        expect(settled.receipt.effectiveGasPrice).toBeLessThanOrEqual(cap);
        const signed = parseTransaction(entry.rawTx);
        expect(signed.maxFeePerGas).toBeLessThanOrEqual(cap);
        expect(signed.maxPriorityFeePerGas).toBeLessThanOrEqual(cap);
      }
      // And an operator sees it: each estimate cut to the cap is counted (the alert FerryFeeEstimatesAboveCap).
      expect((await cappedEstimates(destination.id)) - cappedBefore).toBeGreaterThanOrEqual(1);
    } finally {
      await proxy.stop();
    }
  }, 30_000);

  it("a node answering a huge gas price cannot make the solver keep a deposit as dust that is worth more than its return's gas at the chain's fee cap: it is returned", async () => {
    const clients = new GreedyGasPrice();
    const journal = await journalWith(clients);
    const returns = new UnmatchedReturns(db, chains, journal, {
      leaseMs: 60_000,
      batchSize: 10,
      settleWaitMs: 2_000,
      clients,
    });
    // 0.1 ETH: at 10,000 gwei a return's 30,000 gas would cost 0.3 ETH; at the 100 gwei cap, 0.003 ETH.
    const { depositor, amount, row } = await unmatchedDeposit(db, 7);
    const stateOf = async () => (await row()).state;
    for (let round = 0; round < 20 && ['pending', 'sent'].includes(await stateOf()); round++) {
      await returns.work(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await stateOf()).toBe('done');
    expect(await new EvmClients().of(destination).getBalance({ address: depositor })).toBe(amount);
  }, 30_000);

  it('a held entry another instance abandoned meanwhile is never sent: release sends only what it moved from signed', async () => {
    const journal = await journalWith(new EvmClients());
    const entry = await journal.record(
      destination,
      { to: chain.accounts.solver.address, value: 1n, data: '0x' },
      { purpose: 'claim', jobKey: 'abandoned' },
    );
    // Another instance abandons the held entry (its first step: the entry is void), while this one, holding the
    // entry as it read it (signed), releases it.
    await db.query(`UPDATE solver_transactions SET state = 'void' WHERE id = $1 AND state = 'signed'`, [
      entry.id,
    ]);
    await journal.release(destination, entry);
    // Had it been sent it would have mined (automine) while the journal holds it void: a payout the claim would
    // then be failed for, its amount given back, and paid again.
    expect(await rpc(chain.rpcUrl, 'eth_getTransactionByHash', [entry.txHash])).toBeNull();
    expect((await journal.entriesOf('abandoned')).map((row) => row.state)).toEqual(['void']);
  });

  it('refuses a refund, return or claim payout to a contract that burns gas on receipt: the solver would pay for it', async () => {
    // Runtime: count down from 0x02ee00 (192,000 rounds of 26 gas, ~5M gas), then stop: a receive that succeeds, dearly.
    const runtime = '6202ee005b600190038060045700';
    const init = `0x600e80600b6000396000f3${runtime}`;
    const deployer = await fundedKey(freshKey, chain.rpcUrl);
    const { createWalletClient, http } = await import('viem');
    const wallet = createWalletClient({ account: deployer, transport: http(chain.rpcUrl) });
    const deployed = await wallet.sendTransaction({ chain: null, data: init as Hash, gas: 100_000n });
    const burner = (await new EvmClients().of(destination).waitForTransactionReceipt({ hash: deployed }))
      .contractAddress!;
    const journal = await journalWith(new EvmClients());
    const gas = await new EvmClients()
      .of(destination)
      .estimateGas({ account: journal.address, to: burner, value: 1n });
    expect(gas).toBeGreaterThan(4_000_000n);

    for (const purpose of ['refund', 'return', 'claim'] as const) {
      await expect(
        journal.record(
          destination,
          { to: burner, value: 1n, data: '0x' },
          { purpose, jobKey: `burn-${purpose}` },
        ),
      ).rejects.toBeInstanceOf(PaymentGasTooHigh);
      expect(await journal.entriesOf(`burn-${purpose}`)).toEqual([]);
    }
    expect(await transactionCount(journal)).toBe(0n);
    // A plain transfer to an address is a payment like any other.
    const refund = await journal.record(
      destination,
      { to: deployer.address, value: 1n, data: '0x' },
      { purpose: 'refund', jobKey: 'plain-refund' },
    );
    expect(refund.state).toBe('signed');
  }, 30_000);
});
