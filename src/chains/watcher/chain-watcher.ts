import type { CommandBus } from '@nestjs/cqrs';
import {
  type Address,
  createPublicClient,
  decodeEventLog,
  type Hash,
  http,
  type Log,
  type PublicClient,
} from 'viem';
import type { Clock } from '../../common/clock.js';
import { forEachConcurrently } from '../../common/concurrently.js';
import { followUntilAborted, sleepUnlessAborted } from '../../common/follow-loop.js';
import type { Database } from '../../database/database.js';
import { ExecuteRequestCommand } from '../../requests/commands/execute-request.command.js';
import { RequestDomainError } from '../../requests/domain/request-decide.js';
import { depositoryAbi } from '../abi/depository.js';
import { chainHead } from '../../metrics/process-metrics.js';
import { chainCheckedFetch } from '../chain-checked-fetch.js';
import type { ChainInfo } from '../chain.js';
import {
  depositAddressBalances,
  type DepositAddressTransfer,
  depositAddressTokenTransfers,
  depositAddressTransferOf,
  depositAddressTransfers,
  isDepositAddressSweep,
  markDepositAddressSeen,
  watchedDepositAddresses,
} from './deposit-address-transfers.js';

/** One deposit the depository reported: its order id (= request id) and what was paid. */
export interface DepositLog {
  readonly requestId: string;
  readonly depositor: string;
  /** The token, or the zero address for the native currency. */
  readonly currency: string;
  readonly amount: bigint;
  readonly txHash: Hash;
  readonly blockNumber: bigint;
  readonly logIndex: number;
}

/** What a deposit command carries about the chain transaction. */
interface DepositFacts {
  readonly chainId: number;
  readonly txHash: string;
  readonly logIndex: number;
  readonly block: number;
  readonly timestamp: number;
  readonly fee: string;
  readonly amount: string;
  readonly currency: string;
  readonly depositor: string;
  readonly depository: string;
  readonly sweptFromDepositAddress?: true;
}

export interface WatcherOptions {
  readonly pollIntervalMs: number;
  readonly maxBlockRange: number;
  readonly onError?: (chain: ChainInfo, error: unknown) => void;
  /** A deposit the request would not take (unknown id, illegal transition): logged for operators. */
  readonly onRejected?: (chain: ChainInfo, deposit: DepositLog, error: RequestDomainError) => void;
  /** A deposit-address transfer its request would not record (the funds stay for the recovery address). */
  readonly onRejectedTransfer?: (
    chain: ChainInfo,
    transfer: DepositAddressTransfer,
    error: RequestDomainError,
  ) => void;
}

const NATIVE = '0x0000000000000000000000000000000000000000';

/**
 * Watches the depository of each EVM chain with an RPC and turns deposits into commands on their request:
 * `DetectDeposit` when a deposit is first seen (the request stays `waiting`, history lists it) and
 * `ConfirmDeposit` once its block is final (`pending`). Two cursors per chain, stored in `chain_cursors`: the last
 * block scanned for deposits seen and the last final block scanned for deposits confirmed. Confirmation re-reads the
 * logs of final blocks from the chain as it is then, so a deposit whose block was replaced by a reorg inside the
 * finality window is never confirmed. Commands carry deterministic event ids, so rescanning a range (after a
 * restart or a reorg) appends nothing twice.
 */
export class ChainWatcher {
  private readonly clients = new Map<number, PublicClient>();
  private readonly recentFacts = new Map<string, Promise<DepositFacts>>();
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly db: Database,
    private readonly chains: readonly ChainInfo[],
    private readonly commands: CommandBus,
    private readonly clock: Clock,
    private readonly options: WatcherOptions,
  ) {}

  /** The chains this watcher can read: EVM, with an RPC, open for deposits. */
  static watchable(chains: readonly ChainInfo[]): ChainInfo[] {
    return chains.filter((chain) => chain.vmType === 'evm' && chain.rpcUrl && chain.depositEnabled);
  }

  start(): void {
    const signal = this.abort.signal;
    this.loops = this.chains.map((chain) =>
      followUntilAborted(
        signal,
        async () => (await this.poll(chain)) > 0,
        () => sleepUnlessAborted(this.options.pollIntervalMs, signal),
        (error) => this.options.onError?.(chain, error),
      ),
    );
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  /** One round on one chain: deposits seen since the last round, then deposits now final. Returns blocks scanned. */
  async poll(chain: ChainInfo): Promise<number> {
    const client = this.client(chain);
    const head = await client.getBlockNumber();
    chainHead.set({ chain: String(chain.id) }, Number(head));
    const cursor = await this.cursor(chain, head);
    // A reorg to a shorter chain: scan the new blocks again from the new head.
    const seenFrom = (cursor.seen > head ? head : cursor.seen) + 1n;
    const seenTo = min(head, seenFrom + BigInt(this.options.maxBlockRange) - 1n);
    const finalHead = await this.finalHead(chain, head);
    const finalFrom = cursor.final + 1n;
    const finalTo = min(finalHead, finalFrom + BigInt(this.options.maxBlockRange) - 1n);

    const seenDeposits = seenTo >= seenFrom ? await this.deposits(chain, seenFrom, seenTo) : [];
    // With 1-block finality both ranges are usually the same blocks: their logs are read once.
    const finalDeposits =
      finalTo < finalFrom
        ? []
        : finalFrom === seenFrom && finalTo === seenTo
          ? seenDeposits
          : await this.deposits(chain, finalFrom, finalTo);
    await this.recordDeposits(chain, seenDeposits, finalDeposits);
    if (finalTo >= finalFrom) await this.recordAddressTransfers(chain, finalFrom, finalTo);
    const seen = seenTo >= seenFrom ? seenTo : min(cursor.seen, head);
    const final = finalTo >= finalFrom ? finalTo : cursor.final;
    await this.db.query(
      `UPDATE chain_cursors SET seen_block = $2, final_block = $3, updated_at = now() WHERE chain_id = $1`,
      [chain.id, seen.toString(), final.toString()],
    );
    return Number(max(0n, seenTo - seenFrom + 1n) + max(0n, finalTo - finalFrom + 1n));
  }

  /**
   * A round's deposits: each detected, then each final one confirmed. Deposits of different requests are recorded
   * concurrently (they are different streams, `DEPOSIT_CONCURRENCY` at a time); one request's commands stay in order,
   * its detections then its confirmations, each in log order, as if the round ran one deposit at a time. A failure is
   * thrown once the others have run: the cursors stay, and the round is retried whole (its commands are idempotent).
   */
  private async recordDeposits(
    chain: ChainInfo,
    seen: readonly DepositLog[],
    final: readonly DepositLog[],
  ): Promise<void> {
    const byRequest = new Map<string, (() => Promise<void>)[]>();
    const add = (deposit: DepositLog, step: () => Promise<void>) => {
      const steps = byRequest.get(deposit.requestId) ?? [];
      steps.push(step);
      byRequest.set(deposit.requestId, steps);
    };
    for (const deposit of seen) add(deposit, () => this.detect(chain, deposit));
    for (const deposit of final) add(deposit, () => this.confirm(chain, deposit));
    await forEachConcurrently([...byRequest.values()], DEPOSIT_CONCURRENCY, async (steps) => {
      for (const step of steps) await step();
    });
  }

  /**
   * Transfers into watched deposit addresses in final blocks, recorded on their request, which takes or refuses
   * each (`RecordDepositAddressTransfer`); the solver then sweeps or gives the funds back. Only final blocks: a
   * transfer replaced by a reorg is never swept.
   */
  private async recordAddressTransfers(chain: ChainInfo, from: bigint, to: bigint): Promise<void> {
    const watched = await watchedDepositAddresses(this.db, chain.id);
    const tokens = chain.currencies
      .filter((currency) => currency.address.toLowerCase() !== NATIVE)
      .map((currency) => currency.address as Address);
    const client = this.client(chain);
    for (const transfer of [
      ...(await depositAddressTransfers(client, watched, from, to)),
      ...(await depositAddressTokenTransfers(client, watched, tokens, from, to)),
    ]) {
      await this.recordTransfer(chain, transfer);
    }
    // After this round's transfers are recorded: value that reached an address without a transaction to it.
    for (const transfer of await depositAddressBalances(this.db, client, chain.id, to)) {
      await this.recordTransfer(chain, transfer);
    }
  }

  private async recordTransfer(chain: ChainInfo, transfer: DepositAddressTransfer): Promise<void> {
    try {
      await this.commands.execute(
        new ExecuteRequestCommand(
          transfer.requestId,
          {
            type: 'RecordDepositAddressTransfer',
            data: {
              chainId: chain.id,
              txHash: transfer.txHash,
              block: transfer.block,
              timestamp: transfer.timestamp,
              fee: transfer.fee.toString(),
              address: transfer.address,
              depositor: transfer.depositor,
              amount: transfer.amount.toString(),
              ...(transfer.currency.toLowerCase() === NATIVE ? {} : { currency: transfer.currency }),
              ...(transfer.observedBy ? { observedBy: transfer.observedBy } : {}),
              detectedAt: this.clock.now().toISOString(),
            },
          },
          { actor: 'chain-watcher', chainId: chain.id },
        ),
      );
    } catch (error) {
      if (!(error instanceof RequestDomainError)) throw error;
      this.options.onRejectedTransfer?.(chain, transfer, error);
    }
    // Only native value ends the balance reads: a token (one unit, from anyone) must not hide a smart wallet's
    // payment arriving after it, which only the balance finds.
    if (transfer.currency.toLowerCase() === NATIVE) {
      await markDepositAddressSeen(this.db, chain.id, transfer.address);
    }
  }

  /**
   * `POST /transactions/index`: the deposits of one transaction, handled now rather than at the next round
   * (detected, and confirmed when its block is already final). Returns how many deposits it carried.
   */
  async indexTransaction(chain: ChainInfo, txHash: Hash): Promise<{ deposits: number; final: boolean }> {
    const client = this.client(chain);
    const receipt = await client.getTransactionReceipt({ hash: txHash });
    const head = await client.getBlockNumber();
    const final = receipt.blockNumber <= (await this.finalHead(chain, head));
    const deposits = receipt.status === 'success' ? this.decode(chain, receipt.logs) : [];
    for (const deposit of deposits) {
      await this.detect(chain, deposit);
      if (final) await this.confirm(chain, deposit);
    }
    // A transfer into a deposit address is recorded once final, as the watcher's round would.
    const watched = await watchedDepositAddresses(this.db, chain.id);
    const transfer = await depositAddressTransferOf(client, watched, txHash);
    if (transfer && final) await this.recordTransfer(chain, transfer);
    return { deposits: deposits.length + (transfer ? 1 : 0), final };
  }

  /**
   * The newest final block: the chain's `finalized` block where its config says it has one (`finality.tag`), else
   * `finality.blocks` deep from the head (1 = the head itself).
   */
  private async finalHead(chain: ChainInfo, head: bigint): Promise<bigint> {
    if (chain.finality.tag === 'finalized') {
      const block = await this.client(chain).getBlock({ blockTag: 'finalized' });
      return min(block.number, head);
    }
    return head - BigInt(Math.max(0, chain.finality.blocks - 1));
  }

  private async cursor(chain: ChainInfo, head: bigint): Promise<{ seen: bigint; final: bigint }> {
    // A chain watched for the first time starts at its head: deposits can only pay for quotes this database
    // issued, which come after it. Scanning older blocks would find other Ferrys' deposits (a reused devnet) and
    // return them as unmatched, paying their depositors twice. The head block itself is scanned (a quote issued
    // before this first round may already be paid in it), so it is remembered as `watched_from`: a deposit there
    // for an id no quote issued is not this database's to return (`returnable`).
    const start = head > 0n ? head - 1n : -1n;
    await this.db.query(
      `INSERT INTO chain_cursors (chain_id, seen_block, final_block, watched_from) VALUES ($1, $2, $2, $3)
       ON CONFLICT (chain_id) DO NOTHING`,
      [chain.id, start.toString(), head.toString()],
    );
    const { rows } = await this.db.query<{ seen_block: string; final_block: string }>(
      'SELECT seen_block::text, final_block::text FROM chain_cursors WHERE chain_id = $1',
      [chain.id],
    );
    return { seen: BigInt(rows[0].seen_block), final: BigInt(rows[0].final_block) };
  }

  private async deposits(chain: ChainInfo, fromBlock: bigint, toBlock: bigint): Promise<DepositLog[]> {
    const logs = await this.client(chain).getLogs({
      address: chain.depository as Address,
      fromBlock,
      toBlock,
    });
    return this.decode(chain, logs);
  }

  private decode(chain: ChainInfo, logs: readonly Log[]): DepositLog[] {
    const deposits: DepositLog[] = [];
    for (const log of logs) {
      if (log.address.toLowerCase() !== chain.depository.toLowerCase() || log.transactionHash === null)
        continue;
      let decoded;
      try {
        decoded = decodeEventLog({ abi: depositoryAbi, data: log.data, topics: log.topics });
      } catch {
        continue;
      }
      if (decoded.eventName !== 'NativeDeposit' && decoded.eventName !== 'Erc20Deposit') continue;
      const args = decoded.args as { id: Hash; depositor: Address; amount: bigint; token?: Address };
      deposits.push({
        requestId: args.id.toLowerCase(),
        depositor: args.depositor,
        currency: decoded.eventName === 'Erc20Deposit' ? args.token! : NATIVE,
        amount: args.amount,
        txHash: log.transactionHash,
        blockNumber: log.blockNumber!,
        logIndex: log.logIndex ?? 0,
      });
    }
    return deposits;
  }

  private async detect(chain: ChainInfo, deposit: DepositLog): Promise<void> {
    const facts = await this.facts(chain, deposit);
    await this.execute(chain, deposit, {
      type: 'DetectDeposit',
      data: { ...facts, detectedAt: this.clock.now().toISOString() },
    });
  }

  /**
   * A final deposit confirms its request; one the request cannot take (no such request, a second deposit, a
   * request that already ended) is kept in `unmatched_deposits` for the solver to return to its depositor.
   */
  private async confirm(chain: ChainInfo, deposit: DepositLog): Promise<void> {
    const facts = await this.facts(chain, deposit);
    const rejected = await this.execute(chain, deposit, {
      type: 'ConfirmDeposit',
      data: { ...facts, confirmedAt: this.clock.now().toISOString() },
    });
    if (!rejected || !(await this.returnable(chain, deposit, rejected))) return;
    await this.db.query(
      `INSERT INTO unmatched_deposits (chain_id, tx_hash, log_index, request_id, depositor, currency, amount, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
      [
        chain.id,
        deposit.txHash.toLowerCase(),
        deposit.logIndex,
        deposit.requestId,
        deposit.depositor,
        deposit.currency,
        deposit.amount.toString(),
        unmatchedReason(rejected),
      ],
    );
  }

  /**
   * Whether a deposit its request refused is this database's to return. One for an id no quote of its issued, made
   * no later than the head block when it first watched the chain (found there by the first round, or indexed by
   * hand), was someone else's: another Ferry on the same depository took it, and returning it would pay twice. It is
   * only reported (`onRejected`). A chain with no cursor yet has not been watched: nothing on it is ours yet.
   */
  private async returnable(
    chain: ChainInfo,
    deposit: DepositLog,
    rejected: RequestDomainError,
  ): Promise<boolean> {
    if (rejected.code !== 'REQUEST_NOT_FOUND') return true;
    const { rows } = await this.db.query<{ watched_from: string | null }>(
      'SELECT watched_from::text FROM chain_cursors WHERE chain_id = $1',
      [chain.id],
    );
    if (rows.length === 0) return false;
    return rows[0].watched_from === null || deposit.blockNumber > BigInt(rows[0].watched_from);
  }

  /** The chain facts a deposit command carries: block time and the fee its sender paid. */
  /**
   * The facts of a deposit's transaction, read once: with 1-block finality a deposit is detected and confirmed in
   * the same round, and the two commands share them (the last thousand deposits are kept).
   */
  private facts(chain: ChainInfo, deposit: DepositLog): Promise<DepositFacts> {
    const key = `${chain.id}:${deposit.txHash}:${deposit.logIndex}:${deposit.blockNumber}`;
    let facts = this.recentFacts.get(key);
    if (!facts) {
      if (this.recentFacts.size >= 1_000) this.recentFacts.clear();
      facts = this.readFacts(chain, deposit);
      this.recentFacts.set(key, facts);
      facts.catch(() => this.recentFacts.delete(key));
    }
    return facts;
  }

  private async readFacts(chain: ChainInfo, deposit: DepositLog): Promise<DepositFacts> {
    const client = this.client(chain);
    const [block, receipt] = await Promise.all([
      client.getBlock({ blockNumber: deposit.blockNumber }),
      client.getTransactionReceipt({ hash: deposit.txHash }),
    ]);
    return {
      chainId: chain.id,
      txHash: deposit.txHash,
      logIndex: deposit.logIndex,
      block: Number(deposit.blockNumber),
      timestamp: Number(block.timestamp),
      fee: (receipt.gasUsed * receipt.effectiveGasPrice).toString(),
      amount: deposit.amount.toString(),
      currency: deposit.currency,
      depositor: deposit.depositor,
      depository: chain.depository,
      ...((await isDepositAddressSweep(client, chain.depositAddressFactory, receipt, deposit.requestId))
        ? { sweptFromDepositAddress: true as const }
        : {}),
    };
  }

  private async execute(
    chain: ChainInfo,
    deposit: DepositLog,
    command: ConstructorParameters<typeof ExecuteRequestCommand>[1],
  ): Promise<RequestDomainError | null> {
    try {
      await this.commands.execute(
        new ExecuteRequestCommand(deposit.requestId, command, { actor: 'chain-watcher', chainId: chain.id }),
      );
      return null;
    } catch (error) {
      if (!(error instanceof RequestDomainError)) throw error;
      this.options.onRejected?.(chain, deposit, error);
      return error;
    }
  }

  private client(chain: ChainInfo): PublicClient {
    let client = this.clients.get(chain.id);
    if (!client) {
      // No block-number cache: viem would otherwise reuse the head for its polling interval (4 s by default),
      // delaying every deposit by up to that much. An RPC serving another chain fails every read (`chainCheckedFetch`):
      // the round throws before it records anything or moves a cursor.
      client = createPublicClient({
        transport: http(chain.rpcUrl!, {
          retryCount: 2,
          fetchFn: chainCheckedFetch(chain.rpcUrl!, chain.id),
        }),
        cacheTime: 0,
        pollingInterval: this.options.pollIntervalMs,
      }) as PublicClient;
      this.clients.set(chain.id, client);
    }
    return client;
  }
}

/** Why a deposit is kept in `unmatched_deposits` (docs/settlement.md, "Wrong deposits"). */
function unmatchedReason(error: RequestDomainError): string {
  if (error.code === 'REQUEST_NOT_FOUND') return 'UNKNOWN_REQUEST';
  if (error.code === 'DEPOSIT_MISMATCH') return error.mismatch ?? 'DEPOSIT_MISMATCH';
  return 'REQUEST_CANNOT_TAKE_DEPOSIT';
}

/** How many requests' deposits a round records at once (each a few RPC reads and one or two appends). */
const DEPOSIT_CONCURRENCY = 16;

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
