import { type Address, encodeFunctionData, type Hex, type TransactionReceipt } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { depositoryAbi } from '../../../src/chains/abi/depository.js';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import type { Database } from '../../../src/database/database.js';
import { type ChainClients, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';

export const ETH = '0x0000000000000000000000000000000000000000';

export interface QuoteStep {
  readonly kind: string;
  readonly items: { data: { to: Address; data?: Hex; value?: string; chainId: number } }[];
}
export interface Quote {
  readonly steps: QuoteStep[];
  readonly details: { currencyOut: { amount: string }; currencyIn: { amount: string } };
  readonly protocol: { v2: { orderId: Hex } };
}

/** A fresh recipient per test, so its balance counts this test's payments only. */
export function freshRecipient(seed: number): Address {
  return privateKeyToAccount(`0x${seed.toString(16).padStart(2, '0').repeat(32)}` as Hex).address;
}

/** The quote body of a native ETH bridge a → b of 0.02 ETH to `recipient`. */
export function ethQuoteBody(
  a: Devnet,
  b: Devnet,
  user: Address,
  recipient: Address,
): Record<string, unknown> {
  return {
    user,
    recipient,
    originChainId: a.chainId,
    destinationChainId: b.chainId,
    originCurrency: ETH,
    destinationCurrency: ETH,
    amount: '20000000000000000',
    tradeType: 'EXACT_INPUT',
  };
}

/**
 * The demo user's native deposit of `amount` for `id` into chain a's depository, sent as a wallet sends it, whatever
 * a quote asked (a short amount, an id no quote issued); its receipt. `depositor` is the address the deposit names
 * (the depository takes any: a return goes there).
 */
export function depositNativeFor(
  clients: ChainClients,
  a: Devnet,
  id: Hex,
  amount: bigint,
  depositor: Address = a.accounts.user.address,
): Promise<TransactionReceipt> {
  return clients.send(
    a.chainId,
    a.accounts.user.privateKey,
    a.deployment.depository,
    encodeFunctionData({
      abi: depositoryAbi,
      functionName: 'depositNative',
      args: [depositor, id],
    }),
    amount,
  );
}

/**
 * The demo user's ERC-20 deposit of `amount` of `token` for `id` into chain a's depository (approve, then
 * `depositErc20`), sent as a wallet sends it whatever a quote asked; the deposit's receipt.
 */
export async function depositErc20For(
  clients: ChainClients,
  a: Devnet,
  id: Hex,
  token: Address,
  amount: bigint,
): Promise<TransactionReceipt> {
  const { user } = a.accounts;
  await clients.send(
    a.chainId,
    user.privateKey,
    token,
    encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [a.deployment.depository, amount] }),
  );
  return clients.send(
    a.chainId,
    user.privateKey,
    a.deployment.depository,
    encodeFunctionData({
      abi: depositoryAbi,
      functionName: 'depositErc20',
      args: [user.address, token, amount, id],
    }),
  );
}

/**
 * Deploys (from the demo user) a contract whose receive burns gas: it counts `rounds` down, 26 gas a round, then
 * accepts what it was sent. A refund or return to it costs the solver that gas on top of a transfer's. Its address.
 */
export async function deployGasBurner(
  clients: ChainClients,
  chain: Devnet,
  rounds: number,
): Promise<Address> {
  // PUSH2 rounds; JUMPDEST; PUSH1 1; SWAP1; SUB; DUP1; PUSH1 3; JUMPI; STOP
  const runtime = `61${rounds.toString(16).padStart(4, '0')}5b600190038060035700`;
  const init = `0x600d80600b6000396000f3${runtime}` as Hex;
  const hash = await clients.wallet(chain.chainId).sendTransaction({
    account: privateKeyToAccount(chain.accounts.user.privateKey),
    chain: null,
    data: init,
  });
  return (await clients.reader(chain.chainId).waitForTransactionReceipt({ hash })).contractAddress!;
}

/** Sends the quote's transaction steps from the user's key (each must succeed). */
export async function deposit(clients: ChainClients, a: Devnet, quote: Quote): Promise<void> {
  for (const step of quote.steps) {
    if (step.kind !== 'transaction') continue;
    for (const item of step.items) {
      const receipt = await clients.send(
        item.data.chainId,
        a.accounts.user.privateKey,
        item.data.to,
        item.data.data,
        BigInt(item.data.value ?? '0'),
      );
      if (receipt.status !== 'success') throw new Error('deposit reverted');
    }
  }
}

/** The journal's entries for a request, oldest first. */
export async function journalOf(
  db: Database,
  requestId: string,
): Promise<{ purpose: string; state: string; nonce: string; tx_hash: string }[]> {
  return (
    await db.query<{ purpose: string; state: string; nonce: string; tx_hash: string }>(
      `SELECT purpose, state, nonce::text, tx_hash FROM solver_transactions WHERE request_id = $1 ORDER BY id`,
      [requestId.toLowerCase()],
    )
  ).rows;
}

/**
 * The gas the solver paid on `chain` for the request's payments of `purpose` that mined or reverted (their receipts),
 * how many of them it sent, and how many of them reverted.
 */
export async function solverGasPaid(
  db: Database,
  clients: ChainClients,
  chain: Devnet,
  requestId: string,
  purpose: 'refund' | 'give-back',
): Promise<{ paid: bigint; sent: number; reverted: number }> {
  let paid = 0n;
  let sent = 0;
  let reverted = 0;
  for (const entry of await journalOf(db, requestId)) {
    if (entry.purpose !== purpose || !['mined', 'reverted'].includes(entry.state)) continue;
    const receipt = await clients.reader(chain.chainId).getTransactionReceipt({ hash: entry.tx_hash as Hex });
    paid += receipt.gasUsed * receipt.effectiveGasPrice;
    sent += 1;
    if (receipt.status !== 'success') reverted += 1;
  }
  return { paid, sent, reverted };
}

/** Waits for the watcher's first round on `chain` (its cursor row): deposits made after it are this database's. */
export async function waitForWatcherRound(db: Database, chain: Devnet): Promise<void> {
  await waitFor(
    async () =>
      (await db.query('SELECT 1 FROM chain_cursors WHERE chain_id = $1', [chain.chainId])).rowCount > 0,
    "the watcher's first round",
  );
}

/** Waits for the request's refund job to be settled (`done`: refunded, or skipped). */
export async function waitForRefundDone(db: Database, requestId: string): Promise<void> {
  await waitFor(
    async () =>
      (
        await db.query(
          `SELECT 1 FROM solver_jobs WHERE request_id = $1 AND kind = 'refund' AND state = 'done'`,
          [requestId.toLowerCase()],
        )
      ).rowCount === 1,
    'the refund job to be settled',
  );
}

/** The request's solver job of `kind` (its `solver_jobs` row), if it was enqueued. */
export async function solverJobOf(
  db: Database,
  requestId: string,
  kind: 'refund' | 'give-back',
): Promise<
  { state: string; attempts: number; leased_until: Date | null; last_error: string | null } | undefined
> {
  return (
    await db.query<{ state: string; attempts: number; leased_until: Date | null; last_error: string | null }>(
      `SELECT state, attempts, leased_until, last_error FROM solver_jobs WHERE request_id = $1 AND kind = $2`,
      [requestId.toLowerCase(), kind],
    )
  ).rows[0];
}

/**
 * Spends the request's refund job's earlier attempts (11 of its 12: the next failure is its last) and waits for it to
 * give up (`failed`).
 */
export async function waitForRefundGivenUp(db: Database, requestId: string): Promise<void> {
  await db.query(`UPDATE solver_jobs SET attempts = 11 WHERE request_id = $1 AND kind = 'refund'`, [
    requestId.toLowerCase(),
  ]);
  await waitFor(
    async () => (await solverJobOf(db, requestId, 'refund'))?.state === 'failed',
    'the refund job to give up',
    20_000,
  );
}

/**
 * Waits for the nonce filler of the request's voided refund (its second journal entry) to mine; the journal then.
 */
export async function waitForRefundFiller(
  db: Database,
  requestId: string,
  timeoutMs: number,
): ReturnType<typeof journalOf> {
  return waitFor(
    async () => {
      const entries = await journalOf(db, requestId);
      return entries[1]?.state === 'mined' ? entries : null;
    },
    'the nonce filler of the voided refund to mine',
    timeoutMs,
  );
}

/** The request's event types, in order. */
export async function eventTypesOf(db: Database, requestId: string): Promise<string[]> {
  return (
    await db.query<{ event_type: string }>(
      'SELECT event_type FROM events WHERE stream_id = $1 ORDER BY stream_revision',
      [`request-${requestId.toLowerCase()}`],
    )
  ).rows.map((row) => row.event_type);
}

/** `SmartWallet.executeBatch` (contracts/SmartWallet.sol): several calls, value included, in one transaction. */
export const smartWalletAbi = [
  {
    type: 'function',
    name: 'executeBatch',
    stateMutability: 'payable',
    inputs: [
      {
        name: 'calls',
        type: 'tuple[]',
        components: [
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'data', type: 'bytes' },
        ],
      },
    ],
    outputs: [],
  },
] as const;
