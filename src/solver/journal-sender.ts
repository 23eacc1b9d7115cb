import type { Hex, PrivateKeyAccount } from 'viem';
import { NextReads } from '../chains/block-reads.js';
import type { ChainInfo } from '../chains/chain.js';
import type { Database } from '../database/database.js';
import type { EvmClients } from './evm-clients.js';
import { feeCapOf, withinCap } from './fee-cap.js';
import { feeEstimatesCapped } from '../metrics/process-metrics.js';
import type { JournalEntry, TxIntent } from './transaction-journal.js';

/** The fees of an EIP-1559 transaction, per gas. */
export interface TxFees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

/** Broadcast errors after which the node may hold the transaction anyway: its outcome is unknown, not failed. */
const MAYBE_SENT =
  /already known|known transaction|already imported|nonce too low|nonce has already been used|replacement transaction underpriced|timed? ?out|timeout|fetch failed|socket|ECONN|network/i;

/**
 * Signing and sending for the transaction journal: local signatures with the journal's key, the chain's fees, and
 * broadcasts of stored bytes whose every attempt (and its error) is written on the entry.
 */
export class JournalSender {
  private readonly feeReads = new NextReads<number, TxFees>();

  constructor(
    private readonly db: Database,
    private readonly clients: EvmClients,
    private readonly account: PrivateKeyAccount,
  ) {}

  /** Signs `intent` with `nonce`, `gas` and `fees` (EIP-1559); nothing is stored or sent. */
  async sign(chain: ChainInfo, intent: TxIntent, nonce: bigint, gas: bigint, fees: TxFees): Promise<Hex> {
    return this.account.signTransaction({
      type: 'eip1559',
      chainId: chain.id,
      to: intent.to,
      value: intent.value,
      data: intent.data,
      nonce: Number(nonce),
      gas,
      ...fees,
    });
  }

  /**
   * The chain's fees for a transaction now (viem's estimate from the latest block: a block and a priority-fee read),
   * cut to the chain's cap (`withinCap`; decision 0031): a spike, or a node answering nonsense, makes a transaction
   * wait at the cap, never pay past it. Transactions prepared at once share one estimate that started after each asked
   * (`NextRead`): a round of fills costs two reads, not two per fill, and no fill is signed with fees read before it
   * asked.
   */
  fees(chain: ChainInfo): Promise<TxFees> {
    return this.feeReads.get(chain.id, async () => {
      const estimate = await this.clients.of(chain).estimateFeesPerGas();
      const cap = feeCapOf(chain);
      // Counted, so an operator sees a spike, or a node inflating its estimates, that the cap keeps us out of.
      if (estimate.maxFeePerGas > cap || estimate.maxPriorityFeePerGas > cap) {
        feeEstimatesCapped.inc({ chain: String(chain.id) });
      }
      return withinCap(
        { maxFeePerGas: estimate.maxFeePerGas, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas },
        cap,
      );
    });
  }

  /** Sends an entry's stored bytes and writes the attempt on it. */
  async send(chain: ChainInfo, entry: JournalEntry): Promise<void> {
    await this.recordSends([entry.id], [await this.broadcast(chain, entry)]);
  }

  /** Sends the stored bytes; the error as recorded (`rejected: …` unless the node may hold it anyway), or null. */
  async broadcast(chain: ChainInfo, entry: JournalEntry): Promise<string | null> {
    try {
      await this.clients.of(chain).request({ method: 'eth_sendRawTransaction', params: [entry.rawTx] });
      return null;
    } catch (caught) {
      const error = String((caught as { details?: string }).details ?? (caught as Error).message).slice(
        0,
        500,
      );
      return MAYBE_SENT.test(error) ? error : `rejected: ${error}`;
    }
  }

  /** Writes the outcome of one broadcast of each entry (its error, or null). */
  async recordSends(ids: readonly string[], errors: readonly (string | null)[]): Promise<void> {
    await this.db.query(
      `UPDATE solver_transactions t SET broadcasts = t.broadcasts + 1, last_error = s.error, updated_at = now()
         FROM unnest($1::bigint[], $2::text[]) AS s(id, error) WHERE t.id = s.id`,
      [ids, errors],
    );
  }
}
