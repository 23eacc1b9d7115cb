import { type Address, encodeFunctionData, type Hex, zeroAddress } from 'viem';
import { depositAddressFactoryAbi } from '../chains/abi/deposit-address-factory.js';
import type { ChainInfo } from '../chains/chain.js';
import { failpoint } from '../common/failpoints.js';
import { depositAddressMode } from '../quotes/domain/steps/deposit-address.js';
import type {
  DepositAddressFundedData,
  DepositAddressTransferRefusedData,
  RequestQuotedData,
} from '../requests/domain/request-events.js';
import type { RequestStatus } from '../requests/domain/request-status.js';
import { DustUnknown, isPaymentDust, preparePayment, revertedGas } from './dust.js';
import { readRequestFacts } from './request-facts.js';
import { isRevert, type JobOutcome, type SolverJobDeps, storedError } from './solver-job.js';
import { type ClaimedJob, jobKey } from './solver-jobs.js';
import { isSamePayment, type JournalEntry, type PreparedTx, type TxIntent } from './transaction-journal.js';

/**
 * The least gas a give-back is weighed at, whatever its estimate says (also when the estimate fails: it would revert):
 * it deploys the receiver before it pays.
 */
const GIVE_BACK_FLOOR_GAS = 150_000n;

/** A sweep or give-back that cannot be sent now (RPC down, or it would revert: the funds were recovered). */
export class DepositAddressTxNotSent extends Error {}

/** What the job needs of the request: its quote, the transfer the job is about, where the request stands. */
interface AddressFacts {
  readonly quote: RequestQuotedData;
  readonly funded: DepositAddressFundedData | null;
  readonly refused: DepositAddressTransferRefusedData | null;
  readonly status: RequestStatus;
  /** The request expired after it took the transfer (its deposit would no longer be filled). */
  readonly expiredSinceFunded: boolean;
}

/**
 * Moves the funds of a transfer into a deposit address, one journaled factory call each (deploy + forward in one
 * transaction, so a crash leaves either nothing sent or one stored transaction the journal re-sends):
 *
 * - `sweep` (a transfer the request took): `factory.sweep(orderId, mode, recovery, depositor, quoted amount)` puts
 *   the funds into the depository with the order id; the watcher credits that deposit like any other, and the fill
 *   follows it. If the request moved on before the sweep was signed (it expired), the funds are given back instead.
 * - `give-back` (a refused transfer, or an open address's surplus): `factory.giveBack(…, to, amount)` to `refundTo`,
 *   else the transfer's sender.
 *
 * Only the factory's owner (the solver) may call either, and the factory derives the receiver from the order id, so
 * a sweep can only ever credit the order the address was quoted for.
 */
export class DepositAddressJob {
  constructor(private readonly deps: SolverJobDeps) {}

  async run(job: ClaimedJob): Promise<JobOutcome> {
    const facts = await this.facts(job);
    const origin = this.deps.chains.chain(facts.quote.originChainId);
    const sent = await this.deps.journal.inOrder(origin, async () => {
      const entries = await this.deps.journal.entriesOf(jobKey(job));
      // Its factory calls only: a nonce filler with its key (a held call abandoned when the job gave up) moves nothing.
      let entry = entries.find(
        (e) =>
          (e.purpose === 'sweep' || e.purpose === 'give-back') &&
          ['signed', 'broadcast', 'mined'].includes(e.state),
      );
      if (!entry) {
        const plan = this.plan(job, facts);
        if (!plan) return 'done' as const;
        const notSent = (error: unknown) =>
          new DepositAddressTxNotSent(
            `${plan.purpose} ${isRevert(error) ? 'would revert' : 'not sent'}: ${storedError(error)}`,
          );
        const { prepared, unprepared } = await preparePayment(this.deps.journal, origin, plan.intent);
        // A token is dust too when worth less than the gas: else one unit per transfer drains the solver.
        // Weighed with what its attempts that reverted burnt: a refundTo contract that passes the estimate and
        // reverts once sent (armed by a front-running transaction) would else cost a give-back's gas per attempt.
        if (
          plan.purpose === 'give-back' &&
          (await this.dust(
            origin,
            plan.amount,
            plan.token,
            prepared,
            revertedGas(entries, ['sweep', 'give-back']),
          ))
        ) {
          return 'done' as const;
        }
        if (!prepared) throw notSent(unprepared);
        try {
          entry = await this.deps.journal.recordPrepared(
            origin,
            prepared,
            { purpose: plan.purpose, jobKey: jobKey(job), requestId: facts.quote.requestId },
            this.deps.jobs.guard(job),
          );
        } catch (error) {
          throw notSent(error);
        }
        failpoint('sweep:after-record');
      }
      if (entry.state === 'signed') {
        await this.deps.journal.release(origin, entry);
        failpoint('sweep:after-broadcast');
      }
      return entry;
    });
    if (typeof sent === 'string') return sent;
    return this.await(job, sent, origin.id);
  }

  /** The factory call for this job, or null when there is nothing (left) to move. */
  private plan(
    job: ClaimedJob,
    facts: AddressFacts,
  ): { purpose: 'sweep' | 'give-back'; intent: TxIntent; amount: bigint; token: Address | null } | null {
    const { quote } = facts;
    const origin = this.deps.chains.chain(quote.originChainId);
    if (!origin.depositAddressFactory || !quote.depositAddress) {
      throw new DepositAddressTxNotSent(`chain ${origin.id} has no deposit-address factory`);
    }
    const transfer = facts.funded ?? facts.refused;
    if (!transfer) return null;
    const common = [
      quote.requestId as Hex,
      depositAddressMode(quote.depositAddress.type),
      quote.depositAddress.recoveryAddress as Address,
    ] as const;
    // Found by balance, the transfer has no known sender: the user stands in for it (credited, refunded).
    const sender = transfer.observedBy === 'balance' ? quote.user : transfer.depositor;
    const giveBackTo = (quote.refundTo ?? sender) as Address;
    const token = facts.refused?.currency;
    const giveBack = (amount: bigint) =>
      amount === 0n
        ? null
        : {
            purpose: 'give-back' as const,
            amount,
            token: token === undefined ? null : (token as Address),
            intent: this.factoryCall(
              origin.depositAddressFactory!,
              token === undefined
                ? encodeFunctionData({
                    abi: depositAddressFactoryAbi,
                    functionName: 'giveBack',
                    args: [...common, giveBackTo, amount],
                  })
                : encodeFunctionData({
                    abi: depositAddressFactoryAbi,
                    functionName: 'giveBackToken',
                    args: [...common, token as Address, giveBackTo, amount],
                  }),
            ),
          };
    if (job.kind === 'give-back') {
      if (facts.refused) return giveBack(BigInt(facts.refused.amount));
      return giveBack(BigInt(facts.funded!.surplus));
    }
    const funded = facts.funded!;
    // The request expired before its sweep was signed: it will never be filled, so the funds go back.
    if (facts.status !== 'waiting' || facts.expiredSinceFunded) return giveBack(BigInt(funded.sweepAmount));
    return {
      purpose: 'sweep',
      amount: BigInt(funded.sweepAmount),
      token: null,
      intent: this.factoryCall(
        origin.depositAddressFactory,
        encodeFunctionData({
          abi: depositAddressFactoryAbi,
          functionName: 'sweep',
          args: [...common, sender as Address, BigInt(funded.sweepAmount)],
        }),
      ),
    };
  }

  /**
   * Whether giving `amount` back would cost the solver more gas than it returns: then it is not sent, so nobody can
   * drain the solver with dust transfers to a deposit address. The gas is the give-back's own estimate as the
   * journal would sign it (`prepared`, `gasLimitOf`), as for refunds (decision 0024): the recipient is an address a
   * user chose, and a contract there may burn gas on receipt (up to `GIVE_BACK_GAS_CAP`); never less than
   * `GIVE_BACK_FLOOR_GAS`; plus `spentGas`, what the job's attempts that reverted burnt (a contract may pass the
   * estimate and revert once sent, each attempt at the solver's cost). The funds stay at the address for its recovery
   * address to pull (docs/deposit-addresses.md). A token is compared with the gas by their USD prices; one that cannot
   * be priced now is not sent now (the job retries), rather than sent at any cost.
   */
  private async dust(
    origin: ChainInfo,
    amount: bigint,
    token: Address | null,
    prepared: PreparedTx | null,
    spentGas: bigint,
  ): Promise<boolean> {
    try {
      return await isPaymentDust(this.deps, origin, amount, token ?? zeroAddress, prepared, {
        floorGas: GIVE_BACK_FLOOR_GAS,
        spentGas,
      });
    } catch (error) {
      if (error instanceof DustUnknown) throw new DepositAddressTxNotSent(`give-back of ${error.message}`);
      throw error;
    }
  }

  private factoryCall(factory: string, data: Hex): TxIntent {
    return { to: factory as Address, value: 0n, data };
  }

  private async await(job: ClaimedJob, entry: JournalEntry, chainId: number): Promise<JobOutcome> {
    const origin = this.deps.chains.chain(chainId);
    const settlement = await this.deps.journal.awaitSettled(origin, entry, {
      maxWaitMs: this.deps.settleWaitMs,
      keepGoing: () => this.deps.jobs.renew(job),
      signal: this.deps.stopping,
    });
    if (settlement.kind === 'pending') return 'later';
    if (
      settlement.kind === 'dropped' ||
      !isSamePayment(settlement.entry, entry) ||
      settlement.receipt.status !== 'success'
    ) {
      // Reverted or dropped: this attempt is dead, so another cannot move the funds twice.
      throw new DepositAddressTxNotSent(
        `${entry.purpose} ${entry.txHash} ${settlement.kind === 'mined' ? 'reverted' : 'dropped'}`,
      );
    }
    return 'done';
  }

  /** The request's quote, the transfer named by the job's key (`<chainId>:<txHash>:<0|surplus>`), its status. */
  private async facts(job: ClaimedJob): Promise<AddressFacts> {
    const [chainId, txHash] = job.depositKey.split(':');
    const { quote, status, events } = await readRequestFacts(this.deps.store, job.requestId);
    let funded: DepositAddressFundedData | null = null;
    let refused: DepositAddressTransferRefusedData | null = null;
    let expiredSinceFunded = false;
    const isTransfer = (data: { chainId: number; txHash: string }) =>
      String(data.chainId) === chainId && data.txHash.toLowerCase() === txHash;
    for (const event of events) {
      if (event.type === 'RequestExpired' && funded) expiredSinceFunded = true;
      if (event.type === 'DepositAddressFunded' && isTransfer(event.data as DepositAddressFundedData)) {
        funded = event.data as DepositAddressFundedData;
      }
      if (
        event.type === 'DepositAddressTransferRefused' &&
        isTransfer(event.data as DepositAddressTransferRefusedData)
      ) {
        refused = event.data as DepositAddressTransferRefusedData;
      }
    }
    return { quote, funded, refused, status, expiredSinceFunded };
  }
}
