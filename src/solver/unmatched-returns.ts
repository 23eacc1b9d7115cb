import type { Hex } from 'viem';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Database, SqlExecutor } from '../database/database.js';
import { failpoint } from '../common/failpoints.js';
import { isPaymentDust, preparePayment } from './dust.js';
import type { EvmClients } from './evm-clients.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import { transferIntent } from './payments.js';
import { storedError } from './solver-job.js';
import { isSamePayment, type TransactionJournal } from './transaction-journal.js';

interface UnmatchedRow {
  chain_id: string;
  tx_hash: string;
  log_index: number;
  request_id: string;
  depositor: string;
  currency: string;
  amount: string;
  fence: string;
}

/**
 * Returns deposits no request could take (`unmatched_deposits`: an unknown id, a second deposit, a deposit on
 * another chain or in another currency than quoted) to their depositor, on the chain and in the currency they were
 * made, tagged with the id they carried. Claims are fenced leases like solver jobs; each return is journaled before
 * it is sent, and a row whose return is journaled only waits for it, so a deposit is returned once.
 */
export class UnmatchedReturns {
  constructor(
    private readonly db: Database,
    private readonly chains: ChainRegistry,
    private readonly journal: TransactionJournal,
    private readonly options: {
      readonly leaseMs: number;
      readonly batchSize: number;
      readonly settleWaitMs: number;
      /** Reads the gas price to weigh a return against its gas (dust is not returned). */
      readonly clients: EvmClients;
      /** USD prices, to weigh a token return against its gas. */
      readonly prices?: PriceSource;
      /** Aborts when the solver stops: a return stops waiting for its transaction and is given back. */
      readonly stopping?: AbortSignal;
    },
  ) {}

  /** One round: claims due returns and works them. True when there were any. */
  async work(onError: (error: unknown) => void): Promise<boolean> {
    const { rows } = await this.db.query<UnmatchedRow>(
      `WITH due AS (
         SELECT chain_id, tx_hash, log_index FROM unmatched_deposits
          WHERE state IN ('pending', 'sent') AND next_attempt_at <= now()
            AND (leased_until IS NULL OR leased_until < now())
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       UPDATE unmatched_deposits u SET leased_until = now() + ($2 || ' milliseconds')::interval,
              attempts = attempts + 1, fence = u.fence + 1
         FROM due WHERE (u.chain_id, u.tx_hash, u.log_index) = (due.chain_id, due.tx_hash, due.log_index)
       RETURNING u.chain_id::text, u.tx_hash, u.log_index, u.request_id, u.depositor, u.currency, u.amount::text,
                 u.fence::text`,
      [this.options.batchSize, String(this.options.leaseMs)],
    );
    await Promise.all(
      rows.map(async (row) => {
        try {
          const outcome = await this.returnOne(row);
          await this.update(row, outcome === 'later' ? 'later' : outcome, null);
        } catch (error) {
          await this.update(row, 'retry', storedError(error).slice(0, 1000));
          onError(error);
        }
      }),
    );
    return rows.length > 0;
  }

  private async returnOne(row: UnmatchedRow): Promise<'done' | 'failed' | 'later' | 'dust'> {
    const chain = this.chains.chain(Number(row.chain_id));
    const key = `return:${row.chain_id}:${row.tx_hash}:${row.log_index}`;
    // Journaled and released in nonce order with this process's other transactions on the chain.
    const entry = await this.journal.inOrder(chain, async () => {
      let sent = (await this.journal.entriesOf(key)).find((candidate) =>
        ['signed', 'broadcast', 'mined'].includes(candidate.state),
      );
      if (!sent) {
        const intent = transferIntent(row.currency, row.depositor, BigInt(row.amount), row.request_id as Hex);
        // Worth less than the gas it would be signed with (the depositor may be a contract burning gas on receipt;
        // a plain transfer's at least, also when it cannot be estimated): not returned, it stays in the depository,
        // else dust drains the solver.
        const { prepared, unprepared } = await preparePayment(this.journal, chain, intent);
        if (await isPaymentDust(this.options, chain, BigInt(row.amount), row.currency, prepared))
          return 'dust' as const;
        if (!prepared) throw unprepared;
        sent = await this.journal.recordPrepared(
          chain,
          prepared,
          { purpose: 'return', jobKey: key, requestId: row.request_id },
          (tx) => this.holds(tx, row),
        );
        failpoint('return:after-record');
      }
      if (sent.state === 'signed') {
        await this.journal.release(chain, sent);
        await this.db.query(
          `UPDATE unmatched_deposits SET state = 'sent', refund_tx_hash = $5, updated_at = now()
            WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND fence = $4`,
          [row.chain_id, row.tx_hash, row.log_index, row.fence, sent.txHash],
        );
      }
      return sent;
    });
    if (entry === 'dust') return 'dust';
    const settlement = await this.journal.awaitSettled(chain, entry, {
      maxWaitMs: this.options.settleWaitMs,
      signal: this.options.stopping,
    });
    if (settlement.kind === 'pending') return 'later';
    if (settlement.kind === 'dropped' || !isSamePayment(settlement.entry, entry)) {
      throw new Error(`return ${entry.txHash} dropped; it will be sent again`);
    }
    if (settlement.entry.txHash !== entry.txHash) {
      // Its fee-bumped replacement mined: that is the return.
      await this.db.query(
        `UPDATE unmatched_deposits SET refund_tx_hash = $5, updated_at = now()
          WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND fence = $4`,
        [row.chain_id, row.tx_hash, row.log_index, row.fence, settlement.entry.txHash],
      );
    }
    return settlement.receipt.status === 'success' ? 'done' : 'failed';
  }

  private async holds(tx: SqlExecutor, row: UnmatchedRow): Promise<boolean> {
    const { rowCount } = await tx.query(
      `SELECT 1 FROM unmatched_deposits WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND fence = $4
          AND state IN ('pending', 'sent') FOR UPDATE`,
      [row.chain_id, row.tx_hash, row.log_index, row.fence],
    );
    return rowCount > 0;
  }

  private async update(
    row: UnmatchedRow,
    outcome: 'done' | 'failed' | 'dust' | 'later' | 'retry',
    error: string | null,
  ) {
    await this.db.query(
      `UPDATE unmatched_deposits SET leased_until = NULL, updated_at = now(), last_error = coalesce($6, last_error),
              state = CASE WHEN $5 IN ('done', 'failed', 'dust') THEN $5 ELSE state END,
              next_attempt_at = CASE WHEN $5 = 'retry'
                THEN now() + least(power(2, greatest(attempts - 1, 0)), 300) * interval '1 second'
                ELSE now() + interval '200 milliseconds' END
        WHERE chain_id = $1 AND tx_hash = $2 AND log_index = $3 AND fence = $4`,
      [row.chain_id, row.tx_hash, row.log_index, row.fence, outcome, error],
    );
  }
}
