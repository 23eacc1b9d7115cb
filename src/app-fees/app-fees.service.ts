import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type Address, bytesToHex, type Hex, isAddress } from 'viem';
import type { ChainInfo, ChainCurrency } from '../chains/chain.js';
import { ApiError } from '../common/http/api-error.js';
import { CLOCK, type Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { DATABASE, type Database } from '../database/database.js';
import { AggregateRepository } from '../event-store/aggregate-repository.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.js';
import { quotePriceSource } from '../quotes/quote-price-source.js';
import type { PriceSource } from '../quotes/domain/pricing/price-source.js';
import type { Amount } from '../requests/domain/records.js';
import { EvmClients } from '../solver/evm-clients.js';
import { balanceAmount } from './app-fee-amount.js';
import { AppFeePayoutsProvider } from './app-fee-payouts.provider.js';
import type { ClaimAppFeesDto } from './claim-app-fees.dto.js';
import { claimBelowGasError, refuseClaimBelowGas } from './claim-gas.js';
import type { ClaimPayouts, PayoutOutcome } from './claim-payouts.js';
import { AppFeeDomainError, type ClaimPayoutTerms, openClaim } from './domain/app-fee-account-decide.js';
import type { AppFeeClaimOpenedData } from './domain/app-fee-account-events.js';
import { AppFeeAccountAggregate, appFeeClaimStreamId } from './domain/app-fee-account.aggregate.js';
import { eventData, eventTypeOf } from '../event-store/domain-event.js';
import {
  type AppFeeAccountState,
  availableBalance,
  type ClaimState,
} from './domain/app-fee-account-state.js';
import { atLowerPayout } from './domain/claim-conversion.js';
import { usdFeeToUsdcUnits } from './domain/usdc-conversion.js';
import { Decimal, fromUnits } from '../quotes/domain/pricing/decimal.js';
import { isUndefinedTable } from '../database/undefined-table.js';

export interface AppFeeBalances {
  readonly balances: Amount[];
  /** USDC units: everything credited, what open claims hold, what was paid out. */
  readonly totals: { readonly accrued: string; readonly pending: string; readonly withdrawn: string };
}

export interface ClaimView extends ClaimState {
  readonly address: string;
}

/** `POST /execute/permits` for a claim: how its payout went. */
export interface ClaimExecution {
  readonly message: string;
  readonly requestId: string;
  readonly status: 'paid' | 'submitted';
  readonly txHash: string;
}

/** Balances, claims and their signed authorization (docs/app-fees.md). Reads come from the app-fee projections. */
@Injectable()
export class AppFeesService {
  private readonly prices: PriceSource;
  private readonly clients = new EvmClients();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly accounts: AggregateRepository,
    private readonly payouts: AppFeePayoutsProvider,
  ) {
    this.prices = quotePriceSource(config, clock);
  }

  /** The base USDC: the currency every balance is kept in. */
  get baseCurrency(): ChainCurrency {
    return this.config.chains.currency(this.config.appFees.baseChainId, this.config.appFees.baseCurrency);
  }

  async balances(address: string): Promise<AppFeeBalances> {
    const { account, available } = await this.available(claimAddress(address));
    const usdc = this.baseCurrency;
    return {
      balances: [balanceAmount(usdc, available, await this.usdPrice(usdc))],
      totals: {
        accrued: account?.accrued ?? '0',
        pending: account?.reserved ?? '0',
        withdrawn: account?.withdrawn ?? '0',
      },
    };
  }

  /** What a sponsor's available balance is worth in USD, rounded down: the most its quotes may sponsor. */
  async sponsorBudgetUsd(address: string): Promise<Decimal> {
    const { available } = await this.available(address.toLowerCase());
    const usdc = this.baseCurrency;
    return fromUnits(available, usdc.decimals).mul(Decimal.parse(await this.usdPrice(usdc)), 'floor');
  }

  /** A sponsored USD amount as the sponsor's payment in base USDC units (rounded up: the sponsor is charged). */
  async sponsorPayment(
    address: string,
    sponsoredUsd: string,
  ): Promise<{ address: string; chainId: number; amount: string }> {
    const usdc = this.baseCurrency;
    const amount = usdFeeToUsdcUnits(sponsoredUsd, await this.usdPrice(usdc), usdc.decimals);
    return { address: address.toLowerCase(), chainId: usdc.chainId, amount: amount.toString() };
  }

  /** The account as the `app-fee-balances` projection holds it, and its available balance. */
  private async available(
    address: string,
  ): Promise<{ account: AppFeeAccountState | null; available: bigint }> {
    const account = await this.readAccount(address);
    return { account, available: account ? availableBalance(account) : 0n };
  }

  async claims(address: string): Promise<{ claims: ClaimView[] }> {
    const rows = await this.read<{ state: ClaimView }>(
      'SELECT state FROM app_fee_claims WHERE address = $1 ORDER BY updated_at DESC, id LIMIT 100',
      [claimAddress(address)],
    );
    const now = this.clock.now().toISOString();
    // An open claim past its expiry can no longer be signed: it shows as expired (it never held anything).
    const shown = rows.map(({ state }) =>
      state.status === 'open' && now >= state.expiresAt ? { ...state, status: 'expired' as const } : state,
    );
    return { claims: shown.map(({ conversion: _conversion, ...claim }) => claim as ClaimView) };
  }

  /**
   * Opens a claim and answers the one signature step that authorizes it. Anyone may call this for any address, so it
   * reserves nothing: the balance is taken aside only when the claim address's signature is posted (`authorize`).
   */
  async claim(address: string, body: ClaimAppFeesDto): Promise<{ steps: unknown[] }> {
    const owner = claimAddress(address);
    const payouts = this.treasury();
    const terms = await this.termsOf(owner, body);
    const claimId = bytesToHex(randomBytes(32));
    const at = this.clock.now();
    const expiresAt = new Date(at.getTime() + this.config.appFees.claimTtlSeconds * 1000).toISOString();
    const account = await this.accounts.load(() => new AppFeeAccountAggregate(owner));
    const opened = domainErrorsAsApi(() =>
      openClaim(account.state, { claimId, terms, at: at.toISOString(), expiresAt }, owner),
    );
    await refuseClaimBelowGas(payouts, opened.event);
    const { type, schemaVersion } = eventTypeOf(opened.event);
    await this.store.appendToStream(
      appFeeClaimStreamId(claimId),
      [
        {
          id: opened.id,
          type,
          schemaVersion,
          data: eventData(opened.event),
          metadata: { actor: 'app-fees' },
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    return {
      steps: [
        {
          id: 'authorize',
          action: 'Sign to claim',
          description: 'Sign the claim id with the claim address to authorize the payout',
          kind: 'signature',
          requestId: claimId,
          depositAddress: '',
          items: [
            {
              status: 'incomplete',
              data: {
                sign: { signatureKind: 'eip191', message: claimId },
                post: {
                  endpoint: '/execute/permits',
                  method: 'POST',
                  body: { kind: 'claim', requestId: claimId },
                },
              },
            },
          ],
        },
      ],
    };
  }

  /**
   * A signed claim: the signature over the claim id (raw 32 bytes, EIP-191) must come from the claim address, or be
   * accepted by it through EIP-1271 when it is a contract (viem's `verifyMessage` on the base chain). Only then does
   * the account reserve the whole available balance for it and authorize it, once (a second signed claim of the same
   * balance finds nothing left), and the treasury pays it through the journal.
   */
  async authorize(claimId: string, signature: Hex): Promise<ClaimExecution> {
    const id = claimId.toLowerCase();
    // The claim's own stream holds its terms from the moment it was answered: no read model to wait for.
    const [openedEvent] = await this.store.readStream(appFeeClaimStreamId(id), { maxCount: 1 });
    if (openedEvent?.type !== 'AppFeeClaimOpened')
      throw new ApiError('NOT_FOUND', `No app-fee claim ${claimId}`);
    const claim = openedEvent.data as AppFeeClaimOpenedData;
    // Checked on the base chain, where balances are kept, never on the payout chain the claim names: a contract at
    // the claim address on another chain may have another owner (a replayed or counterfactual deployment), and
    // anyone may open a claim payable there (test/integration/app-fees/app-fee-claim-chain-of-signature.int-spec.ts).
    const chain = this.payoutChain(this.config.appFees.baseChainId);
    this.payoutChain(claim.chainId);
    let valid: boolean;
    try {
      valid = await this.clients
        .of(chain)
        .verifyMessage({ address: claim.address as Address, message: { raw: id as Hex }, signature });
    } catch (error) {
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        `Chain ${chain.id} could not verify the signature: ${String(error)}`.slice(0, 300),
      );
    }
    if (!valid) {
      throw new ApiError(
        'INVALID_SIGNATURE',
        `The signature is not ${claim.address}'s over claim ${claimId}`,
      );
    }
    const payouts = this.treasury();
    const opened = await this.atLowerPayout(claim);
    const account = await this.execute(claim.address, (aggregate) =>
      aggregate.handle({
        type: 'AuthorizeClaim',
        data: { claimId: id, signature, at: this.clock.now().toISOString(), opened },
      }),
    );
    const outcome = await payouts.pay(
      claim.address,
      account.state.claims[id],
      this.config.appFees.payoutWaitMs,
    );
    if (outcome.status === 'failed') {
      if (outcome.belowGas) throw claimBelowGasError(account.state.claims[id]);
      throw new ApiError(
        'CLAIM_PAYOUT_FAILED',
        `Claim ${claimId} was not paid; the balance is claimable again`,
        {
          reason: outcome.reason,
          txHash: outcome.txHash,
        },
      );
    }
    return {
      message: outcome.status === 'paid' ? 'Paid' : 'Submitted',
      requestId: id,
      status: outcome.status,
      txHash: outcome.txHash,
    };
  }

  /** The opened terms at the lower of their frozen and today's conversion (`atLowerPayout`). */
  private async atLowerPayout(opened: AppFeeClaimOpenedData): Promise<AppFeeClaimOpenedData> {
    if (!opened.conversion) return opened;
    const target = this.config.chains.findCurrency(opened.chainId, opened.currency);
    if (!target)
      throw new ApiError('UNSUPPORTED_CURRENCY', `${opened.currency} is no longer a currency here`);
    return atLowerPayout(opened, await this.usdPrice(this.baseCurrency), await this.usdPrice(target));
  }

  /** Drives a claim's payout (also the resumer's way back into one a crash interrupted). */
  async pay(address: string, claim: ClaimState, signal?: AbortSignal): Promise<PayoutOutcome> {
    return this.treasury().pay(address, claim, this.config.appFees.payoutWaitMs, signal);
  }

  /** The treasury's payouts; without a key nothing is reserved or authorized, since nothing could be paid. */
  private treasury(): ClaimPayouts {
    const payouts = this.payouts.get();
    if (!payouts) {
      throw new ApiError('CHAIN_NOT_CONFIGURED', 'No treasury key here to pay claims', {
        variable: 'TREASURY_PRIVATE_KEY',
      });
    }
    return payouts;
  }

  private async termsOf(owner: string, body: ClaimAppFeesDto): Promise<ClaimPayoutTerms> {
    const chain = this.payoutChain(body.chainId);
    const currency = this.config.chains.findCurrency(chain.id, body.currency);
    if (!currency) {
      throw new ApiError('UNSUPPORTED_CURRENCY', `${body.currency} is not a currency of chain ${chain.id}`);
    }
    const usdc = this.baseCurrency;
    const isBase = chain.id === usdc.chainId && currency.address.toLowerCase() === usdc.address.toLowerCase();
    const usdcPrice = await this.usdPrice(usdc);
    return {
      chainId: chain.id,
      currency: currency.address,
      recipient: (body.recipient ?? owner).toLowerCase(),
      fee: isBase ? 0n : usdFeeToUsdcUnits(this.config.appFees.claimFeeUsd, usdcPrice, usdc.decimals),
      conversion: isBase
        ? null
        : {
            usdc: { decimals: usdc.decimals, usdPrice: usdcPrice },
            target: { decimals: currency.decimals, usdPrice: await this.usdPrice(currency) },
          },
    };
  }

  /** Claims are paid on EVM chains Ferry can send on here. */
  private payoutChain(chainId: number): ChainInfo {
    const chain = this.config.chains.find(chainId);
    if (!chain || chain.vmType !== 'evm') {
      throw new ApiError('UNSUPPORTED_CHAIN', `Claims are paid on EVM chains; ${chainId} is not one here`);
    }
    if (!chain.rpcUrl) {
      throw new ApiError('CHAIN_NOT_CONFIGURED', `Chain ${chain.id} has no RPC here`, {
        chainId: chain.id,
        variable: chain.rpcUrlVariable,
      });
    }
    return chain;
  }

  private async usdPrice(currency: ChainCurrency): Promise<string> {
    const price = await this.prices.usdPrice(currency);
    if (!price)
      throw new ApiError(
        'UNSUPPORTED_CURRENCY',
        `No USD price for ${currency.symbol} on ${currency.chainId}`,
      );
    return price;
  }

  /** A read-model query; before the projections' first build there is nothing to serve yet (503, not 500). */
  private async read<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.db.query<R>(sql, params)).rows;
    } catch (error) {
      if (isUndefinedTable(error)) {
        throw new ApiError('SERVICE_UNAVAILABLE', 'App-fee balances are being built; retry shortly');
      }
      throw error;
    }
  }

  private async readAccount(address: string): Promise<AppFeeAccountState | null> {
    const rows = await this.read<{ state: AppFeeAccountState }>(
      'SELECT state FROM app_fee_balances WHERE id = $1',
      [address],
    );
    return rows[0]?.state ?? null;
  }

  /** Runs a decision on the account, re-deciding on fresh state after a conflict; domain errors become 4xx. */
  private async execute(
    address: string,
    decide: (account: AppFeeAccountAggregate) => void,
  ): Promise<AppFeeAccountAggregate> {
    try {
      return await this.accounts.execute(() => new AppFeeAccountAggregate(address), decide, {
        maxAttempts: 10,
        metadata: { actor: 'app-fees' },
      });
    } catch (error) {
      throw apiErrorOf(error);
    }
  }
}

/** Runs a pure decision; a domain error becomes its 4xx. */
function domainErrorsAsApi<T>(decision: () => T): T {
  try {
    return decision();
  } catch (error) {
    throw apiErrorOf(error);
  }
}

/** An AppFeeDomainError as the API answers it; anything else as it is. */
function apiErrorOf(error: unknown): unknown {
  if (!(error instanceof AppFeeDomainError)) return error;
  switch (error.code) {
    case 'CLAIM_NOT_FOUND':
      return new ApiError('NOT_FOUND', error.message);
    case 'CLAIM_EXISTS':
    case 'SPONSORSHIP_NOT_COVERED':
    case 'ILLEGAL_TRANSITION':
      return new ApiError('CONFLICT', error.message);
    default:
      return new ApiError(error.code, error.message);
  }
}

/** The claim address, lowercased; a malformed one is a 400 naming the field. */
export function claimAddress(address: string): string {
  if (!isAddress(address, { strict: false })) {
    throw new ApiError('INVALID_ADDRESS', `${address.slice(0, 60)} is not an EVM address`, {
      field: 'address',
    });
  }
  return address.toLowerCase();
}
