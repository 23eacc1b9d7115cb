import { requestFeatures } from '../requests/domain/request-features.js';
import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Address, Hex } from 'viem';
import { ChainRuntime } from '../chains/chain-runtime.service.js';
import type { ChainInfo } from '../chains/chain.js';
import { ApiError } from '../common/http/api-error.js';
import { failpoint } from '../common/failpoints.js';
import { CLOCK, type Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database, type SqlExecutor } from '../database/database.js';
import { AGGREGATE_SNAPSHOTS, type SnapshotStore } from '../event-store/aggregate-snapshots.js';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../event-store/event-store.js';
import { SponsorHolds } from '../app-fees/sponsor-holds.js';
import { RequestDomainError } from '../requests/domain/request-decide.js';
import { requestStreamId } from '../requests/domain/request.aggregate.js';
import { erc20Abi } from '../chains/abi/erc20.js';
import { EvmClients } from '../solver/evm-clients.js';
import { isRevert, message } from '../solver/solver-job.js';
import {
  EntryNotHeldError,
  type JournalEntry,
  LeaseLostError,
  type TransactionJournal,
} from '../solver/transaction-journal.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import {
  type PermitParameters,
  permitDepositCalldata,
  verifyPermitSignature,
} from '../quotes/domain/steps/permit.js';
import {
  permitJobKey,
  permitMarginSeconds,
  permitSecondsLeft,
  permitValidBefore,
  submitPermitDeposit,
} from './permit-deposit.js';
import { permitsInFlight } from './permits-in-flight.js';

/** A permit the user's balance does not fund beside the user's permits in flight (smallest units, as strings). */
interface Unfunded {
  readonly balance: string;
  readonly inFlight: string;
  readonly amount: string;
}

/**
 * The execute path of `usePermit` quotes: the user signed an EIP-3009 `ReceiveWithAuthorization` (the quote's
 * `authorize` step); Ferry checks it against the recorded quote and its relayer submits
 * `depositErc20WithAuthorization` on the origin chain, paying the gas. The request goes `depositing`; the chain
 * watcher confirms the deposit (`pending`) like any other.
 *
 * Everything that can refuse a permit is decided before the relayer takes a nonce for it: a permit refused after
 * that is journaled already, and its nonce costs a filler transaction (`journal.abandon`, 21k gas). That includes
 * the sponsor's side: a quote an app-fee balance sponsors has its sponsorship held on that account
 * (`SponsorHolds`, the hold its fill would take) before the relayer spends gas on it, and a permit the balance no
 * longer covers is refused (`SPONSORSHIP_NOT_COVERED`) rather than deposited, filled never and refunded.
 */
@Injectable()
export class ExecuteService {
  private readonly sponsors: SponsorHolds;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(AGGREGATE_SNAPSHOTS) snapshots: SnapshotStore,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly runtime: ChainRuntime,
  ) {
    this.sponsors = new SponsorHolds(store, { snapshots });
  }

  /** Reads the user's balance before the relayer pays for a permit. */
  private readonly clients = new EvmClients();

  async permit(
    requestId: string,
    signature: Hex,
  ): Promise<{ message: string; requestId: string; txHash: string }> {
    const events = await this.store.readStream(requestStreamId(requestId));
    const quoted = events[0];
    if (!quoted || quoted.type !== 'RequestQuoted') {
      throw new ApiError('NOT_FOUND', `No quote issued request ${requestId}`);
    }
    const quote = quoted.data as RequestQuotedData;
    const origin = this.config.chains.chain(quote.originChainId);
    const currency = this.config.chains.currency(origin.id, quote.currencyIn.currency.address);
    if (!requestFeatures(quote.features).includes('gasless_execution') || !currency.eip712) {
      throw new ApiError('UNSUPPORTED_OPTION', `Request ${quote.requestId} was not quoted with usePermit`);
    }
    const journal = this.runtime.relayerJournal;
    if (!journal || !origin.rpcUrl) {
      throw new ApiError('CHAIN_NOT_CONFIGURED', `No relayer for chain ${origin.id} here`, {
        chainId: origin.id,
        variable: origin.rpcUrl ? 'RELAYER_PRIVATE_KEY' : origin.rpcUrlVariable,
      });
    }
    const parameters: PermitParameters = {
      requestId: quote.requestId as Hex,
      chainId: origin.id,
      token: currency.address as Address,
      tokenDomain: currency.eip712,
      user: quote.user as Address,
      depository: origin.depository as Address,
      amount: BigInt(quote.currencyIn.amount),
      validAfter: 0,
      validBefore: permitValidBefore(quote.quoteExpiresAt),
    };
    await verifyPermitSignature(parameters, signature);
    const submitted = await this.submittedAfterQuote(journal, quote.requestId, events);
    if (submitted) return { message: 'Submitted', requestId: quote.requestId, txHash: submitted.txHash };
    this.refuseExpiring(parameters);
    const data = permitDepositCalldata(parameters, signature);
    const entry = await this.journaled(journal, origin, quote, parameters, data);
    return { message: 'Submitted', requestId: quote.requestId, txHash: entry.txHash };
  }

  /**
   * Null while the request has nothing after its quote. Anything after it is a deposit (ours, submitted: answered
   * with again), past one, or the quote's expiry: a permit sent now would be a second deposit (the relayer's gas,
   * then Ferry's return) or a late one, so it is refused (`CONFLICT`).
   */
  private async submittedAfterQuote(
    journal: TransactionJournal,
    requestId: string,
    events: readonly RecordedEvent[],
  ): Promise<JournalEntry | null> {
    if (events.length <= 1) return null;
    const submitted = await this.submitted(journal, requestId);
    if (submitted) return submitted;
    throw new ApiError('CONFLICT', `Request ${requestId} is past its deposit`);
  }

  /**
   * The request's permit transaction already journaled and not dead (signed, broadcast or mined), if any. Not the
   * nonce filler of one abandoned (purpose `gap`, under the same job): that one deposits nothing.
   */
  private async submitted(journal: TransactionJournal, requestId: string): Promise<JournalEntry | undefined> {
    return (await journal.entriesOf(permitJobKey(requestId))).find(
      (entry) => entry.purpose === 'permit' && ['signed', 'broadcast', 'mined'].includes(entry.state),
    );
  }

  /** `CONFLICT` when the authorization expires too soon for the relayer to be sure it mines before then. */
  private refuseExpiring(parameters: PermitParameters): void {
    const margin = permitMarginSeconds(this.config.quotes.quoteTtlSeconds);
    const left = permitSecondsLeft(parameters.validBefore, this.clock.now());
    if (left >= margin) return;
    throw new ApiError(
      'CONFLICT',
      `The permit of ${parameters.requestId} expires ${left > 0 ? `in ${Math.floor(left)} s` : 'now'}: too soon to be sure the deposit mines before then; quote again`,
      { validBefore: parameters.validBefore, marginSeconds: margin },
    );
  }

  /**
   * The relayer's deposit transaction for a request, sent once: journaled (held) under a per-request lock, recorded
   * on the request (`SubmitDeposit`), then broadcast. A second call (a retry, a concurrent duplicate) answers with the
   * transaction already journaled instead of paying gas for another. It is not journaled when the user's balance does
   * not fund it together with the user's other permits in flight (`permitsInFlight`): gas estimation does not see
   * those, and one of them would revert at the relayer's cost. Nor when the sponsor's balance does not cover it, or
   * the request moved on while the relayer estimated it (`refuseBeforeNonce`).
   */
  private async journaled(
    journal: TransactionJournal,
    origin: ChainInfo,
    quote: RequestQuotedData,
    parameters: PermitParameters,
    data: Hex,
  ): Promise<JournalEntry> {
    const requestId = parameters.requestId;
    return journal.inOrder(origin, async () => {
      const key = permitJobKey(requestId);
      const refused: { unfunded?: Unfunded } = {};
      const live = () => this.submitted(journal, requestId);
      let entry = await live();
      if (!entry) {
        try {
          const prepared = await chainRead(origin, () =>
            journal.prepare(origin, { to: origin.depository as Address, value: 0n, data }),
          );
          entry =
            (await this.refuseBeforeNonce(journal, origin, quote, parameters)) ??
            (await journal.recordPrepared(
              origin,
              prepared,
              { purpose: 'permit', jobKey: key, requestId },
              async (tx) => {
                await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
                const { rowCount } = await tx.query(
                  `SELECT 1 FROM solver_transactions
                    WHERE job_key = $1 AND purpose = 'permit' AND state IN ('signed', 'broadcast', 'mined')`,
                  [key],
                );
                if (rowCount !== 0) return false;
                await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
                  fundsLockOf(origin, parameters),
                ]);
                refused.unfunded = (await this.unfunded(tx, origin, parameters)) ?? undefined;
                return refused.unfunded === undefined;
              },
            ));
          failpoint('permit:after-record');
        } catch (error) {
          // Already the answer (a refusal decided before the nonce): not to be read as a revert by its words.
          if (error instanceof ApiError) throw error;
          const unfunded = refused.unfunded;
          if (error instanceof LeaseLostError && unfunded) throw unfundedError(requestId, unfunded);
          if (error instanceof LeaseLostError) entry = await live();
          else if (isRevert(error)) {
            throw new ApiError(
              'CONFLICT',
              `The permit deposit of ${requestId} would revert: ${message(error)}`,
            );
          } else throw error;
        }
        if (!entry) throw new ApiError('CONFLICT', `Request ${requestId} is being submitted; retry`);
      }
      if (entry.state === 'signed') {
        try {
          await this.commands.execute(
            submitPermitDeposit(requestId, origin.id, entry.txHash, this.clock.now()),
          );
        } catch (error) {
          if (!(error instanceof RequestDomainError)) throw error;
          // The request took a deposit meanwhile (one made directly, seen while this was prepared): the permit
          // never leaves. The relayer's sweep may have abandoned it first (`HeldPermits`).
          await journal.abandon(origin, entry).catch((abandonError: unknown) => {
            if (!(abandonError instanceof EntryNotHeldError)) throw abandonError;
          });
          throw new ApiError('CONFLICT', `Request ${requestId} is past its deposit: ${error.message}`);
        }
        await journal.release(origin, entry);
      }
      return entry;
    });
  }

  /**
   * What is decided after the relayer's gas estimate and before it takes a nonce, so a refusal costs no filler: the
   * user's permits in flight (checked again under a lock in the journal's transaction, for instances sharing the
   * relayer), then the sponsor's hold, then the request read again (a deposit made directly, or the quote's expiry,
   * while the relayer estimated: `CONFLICT`; our own permit journaled meanwhile by another instance: that entry).
   * A hold taken here stays the request's when the permit is refused after it: a retried permit, or the fill of a
   * deposit made directly, finds it; the request's end gives it back (docs/app-fees.md, "Sponsorship money").
   */
  private async refuseBeforeNonce(
    journal: TransactionJournal,
    origin: ChainInfo,
    quote: RequestQuotedData,
    parameters: PermitParameters,
  ): Promise<JournalEntry | null> {
    const unfunded = await this.unfunded(this.db, origin, parameters);
    if (unfunded) throw unfundedError(parameters.requestId, unfunded);
    if (!(await this.sponsors.hold(quote, this.clock.now().toISOString(), 'execute'))) {
      throw new ApiError(
        'SPONSORSHIP_NOT_COVERED',
        `The app-fee balance that sponsors request ${quote.requestId} no longer covers the ${quote.sponsor!.amount} USDC units its quote sponsored; nothing was sent: quote again`,
        { sponsoredAmount: quote.sponsor!.amount },
      );
    }
    const events = await this.store.readStream(requestStreamId(quote.requestId));
    return this.submittedAfterQuote(journal, quote.requestId, events);
  }

  /**
   * Whether the user's balance falls short of this permit plus the user's permits in flight (then what it found). The
   * journal's guard runs it in its transaction under the (chain, user, token) lock (`fundsLockOf`), so instances
   * sharing the relayer decide in turn.
   */
  private async unfunded(
    tx: SqlExecutor,
    origin: ChainInfo,
    parameters: PermitParameters,
  ): Promise<Unfunded | null> {
    const { user, token, amount } = parameters;
    const key = permitJobKey(parameters.requestId);
    const inFlight = await permitsInFlight(tx, { chainId: origin.id, user, token, exceptJobKey: key });
    if (inFlight === 0n) return null;
    const balance = await chainRead(origin, () =>
      this.clients
        .of(origin)
        .readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [user] }),
    );
    if (balance >= inFlight + amount) return null;
    return { balance: balance.toString(), inFlight: inFlight.toString(), amount: amount.toString() };
  }
}

/** The advisory lock under which the permits of one (chain, user, token) are weighed against its balance. */
function fundsLockOf(origin: ChainInfo, { user, token }: PermitParameters): string {
  return `permit-funds:${origin.id}:${user.toLowerCase()}:${token.toLowerCase()}`;
}

/** `CONFLICT`: the user's permits in flight leave this one unfunded. */
function unfundedError(requestId: string, unfunded: Unfunded): ApiError {
  return new ApiError(
    'CONFLICT',
    `The permit deposit of ${requestId} is not funded: the user's permits in flight take ${unfunded.inFlight} of the balance of ${unfunded.balance}; retry once they have mined`,
    unfunded,
  );
}

/**
 * Runs a read of the origin chain the relayer needs before it journals a permit. A revert is the caller's to judge
 * (the deposit would revert: 409); any other failure of the RPC is 400 CHAIN_RPC_UNAVAILABLE, not a 500: nothing was
 * journaled and the permit can be posted again once the RPC answers.
 */
async function chainRead<T>(chain: ChainInfo, reading: () => Promise<T>): Promise<T> {
  try {
    return await reading();
  } catch (error) {
    if (isRevert(error)) throw error;
    throw new ApiError(
      'CHAIN_RPC_UNAVAILABLE',
      `Chain ${chain.id}'s RPC failed while the relayer prepared the permit deposit: ${message(error).split('\n')[0].slice(0, 200)}; retry`,
      { chainId: chain.id, reason: 'rpc-failed' },
    );
  }
}
