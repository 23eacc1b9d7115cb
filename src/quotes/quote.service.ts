import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Hex } from 'viem';
import type { AuthenticatedApiKey } from '../api-keys/api-keys.service.js';
import { AppFeesService } from '../app-fees/app-fees.service.js';
import { ChainReader } from '../chains/chain-reader.js';
import type { ChainInfo } from '../chains/chain.js';
import type { ChainRegistry } from '../chains/chain-registry.js';
import { isSvmBlockhashUnavailable, SvmBlockhashReader } from '../chains/svm/svm-blockhash-reader.js';
import { CLOCK, type Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { ExecuteRequestCommand } from '../requests/commands/execute-request.command.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import { fundedCallValue, orderCallsFromTxs } from './domain/order/order-calls.js';
import { QuoteError } from './domain/quote-error.js';
import { buildOrder, type BuiltOrder } from './domain/order/order-data.js';
import { Decimal, toUnits } from './domain/pricing/decimal.js';
import type { PriceSource } from './domain/pricing/price-source.js';
import { PriceBook } from './domain/pricing/price-book.js';
import { priceQuote } from './domain/pricing/price-quote.js';
import type { PricedQuote } from './domain/pricing/priced-quote.js';
import { buildSteps, type BuildStepsInput, depositAddressOf } from './domain/steps/build-steps.js';
import { WatchDepositAddressCommand } from '../chains/deposit-addresses/watch-deposit-address.command.js';
import { assertDepositAddressEligible } from './domain/steps/deposit-address-eligibility.js';
import { activationFeeUsd, PerpsAActivation } from './perps-a-activation.js';
import { quotePriceSource } from './quote-price-source.js';
import { type QuoteParties, resolveParties } from './quote-plan.js';
import { quoteDetails, quotedRoute, requestFeaturesOf } from './quote-details.js';
import { refuseBeyondLiquidity, refuseUnreadGasPrice, withRequestId } from './quote-guards.js';
import { DEFAULT_SETTLEMENT, SETTLEMENT_SUPPORT, type SettlementSupport } from './settlement-support.js';
import type { PriceRequestDto, QuoteRequestDto } from './quote-request.dto.js';
import { type PriceResponse, priceDetailsOf, type QuoteResponse } from './quote-response.js';

/** How long an SVM blockhash is reused: short against its ~60 s validity (docs/svm.md). */
const SVM_BLOCKHASH_CACHE_MS = 2000;
const HUB_TYPE = 'onchain';

interface Priced {
  readonly parties: QuoteParties;
  readonly priced: PricedQuote;
  readonly userBalance: bigint | null;
}

/**
 * How long after its quote expired a deposit address is still watched: a transfer that arrives late is seen and
 * given back rather than left for the recovery address (docs/deposit-addresses.md).
 */
const DEPOSIT_ADDRESS_WATCH_GRACE_MS = 7 * 24 * 3_600_000;

/**
 * Quotes: resolve the request against the chain registry, price it (pure domain: `priceQuote`), build the order
 * and the steps (pure: `buildOrder`, `buildSteps`), record the request (`RecordQuote` through the command bus, so the
 * request exists as `waiting` before its id is handed out) and answer. `/price` stops before the order.
 */
@Injectable()
export class QuoteService {
  private readonly chains: ChainRegistry;
  private readonly prices: PriceSource;
  private readonly reader: ChainReader;
  private readonly svmBlockhashes: SvmBlockhashReader;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly activation: PerpsAActivation,
    private readonly appFees: AppFeesService,
    @Optional() @Inject(SETTLEMENT_SUPPORT) private readonly settlement?: SettlementSupport,
  ) {
    this.chains = config.chains;
    this.prices = quotePriceSource(config, clock);
    this.reader = new ChainReader({
      cacheMs: config.quotes.gasPriceCacheMs,
      timeoutMs: config.quotes.rpcTimeoutMs,
    });
    this.svmBlockhashes = new SvmBlockhashReader({
      cacheMs: Math.min(config.quotes.gasPriceCacheMs, SVM_BLOCKHASH_CACHE_MS),
      timeoutMs: config.quotes.rpcTimeoutMs,
    });
  }

  async price(request: PriceRequestDto, apiKey: AuthenticatedApiKey | null): Promise<PriceResponse> {
    const { parties, priced, userBalance } = await this.priceRequest(request, apiKey);
    const details = quoteDetails(request, parties, priced, userBalance);
    return { fees: priced.quoteFees, details: priceDetailsOf(details) };
  }

  async quote(request: QuoteRequestDto, apiKey: AuthenticatedApiKey | null): Promise<QuoteResponse> {
    const { parties, priced, userBalance } = await this.priceRequest(request, apiKey);
    if (request.useDepositAddress === true) {
      assertDepositAddressEligible({ ...parties, requestType: priced.requestType });
    }
    const now = this.clock.now();
    const quoteExpiresAt = new Date(now.getTime() + this.config.quotes.quoteTtlSeconds * 1000);
    const fillDeadline = new Date(now.getTime() + this.config.quotes.fillDeadlineSeconds * 1000);
    const order = this.order(request, parties, priced, fillDeadline);
    const requestId = order.orderId;
    const { stepsInput, steps } = await withRequestId(requestId, async () => {
      const input = await this.stepsInput(request, parties, priced, requestId, now, quoteExpiresAt);
      return { stepsInput: input, steps: buildSteps(input) };
    });
    const depositAddress = depositAddressOf(stepsInput);
    const details = quoteDetails(request, parties, priced, userBalance);

    const quoted: RequestQuotedData = {
      requestId,
      quotedAt: now.toISOString(),
      apiKeyId: apiKey?.id ?? null,
      referrer: request.referrer ?? null,
      user: parties.user,
      sender: parties.user,
      recipient: parties.recipient,
      refundTo: parties.refundTo,
      requestType: priced.requestType,
      operation: priced.operation,
      transactionType: priced.transactionType,
      features: requestFeaturesOf(request, priced, depositAddress !== null),
      originChainId: parties.origin.id,
      destinationChainId: parties.destination.id,
      currencyIn: priced.currencyIn,
      currencyOut: priced.currencyOut,
      currencyGasTopup: null,
      refundCurrency: null,
      rate: priced.rate,
      slippageTolerance: priced.slippageToleranceBps,
      timeEstimate: parties.origin.timeEstimateSeconds,
      usesExternalLiquidity: request.useExternalLiquidity ?? false,
      fees: priced.fees,
      feeCurrency: priced.feeCurrency,
      appFees: priced.appFees,
      appFeeCurrency: priced.appFeeCurrency,
      feeSponsorship: priced.feeSponsorship?.record ?? null,
      sponsorshipCurrency: priced.feeSponsorship?.currency ?? null,
      ...(await this.sponsorOf(apiKey, priced)),
      route: quotedRoute(request, priced),
      protocol: {
        orderId: requestId,
        hubType: HUB_TYPE,
        isWithdrawable: parties.origin.vmType === 'perps-a' || parties.origin.vmType === 'perps-b',
        orderData: order.orderData,
        paymentDetails: order.paymentDetails,
        solver: {
          address: parties.destination.solver,
          protocolChainId: parties.destination.name,
          chainId: parties.destination.id,
        },
      },
      depositAddress,
      quoteOraclePrice: null,
      externalMetadata: { moonpayId: null },
      quoteExpiresAt: quoteExpiresAt.toISOString(),
      depositConfirmationTimeoutSeconds: this.config.quotes.depositConfirmationTimeoutSeconds,
      fillDeadline: fillDeadline.toISOString(),
      ...(stepsInput.vmType === 'perps-a'
        ? {
            authorization: {
              kind: 'nonce-mapping' as const,
              nonce: stepsInput.nonce,
              wallet: parties.user,
              depositor: parties.user,
            },
          }
        : {}),
    };
    if (depositAddress) {
      // Watched before the request exists, so no transfer can reach the address unseen.
      await this.commands.execute(
        new WatchDepositAddressCommand(
          parties.origin.id,
          depositAddress.address,
          requestId,
          quoteExpiresAt,
          new Date(quoteExpiresAt.getTime() + DEPOSIT_ADDRESS_WATCH_GRACE_MS),
        ),
      );
    }
    await this.commands.execute(
      new ExecuteRequestCommand(requestId, { type: 'RecordQuote', data: quoted }, { actor: 'quote' }),
    );
    return {
      steps,
      fees: priced.quoteFees,
      // Always an object (nothing selected when no sponsorship was asked for); `actual` comes with execution.
      feeSponsorship: { quoted: priced.shownSponsorship.quoted, actual: null },
      details,
      protocol: {
        v2: {
          orderId: requestId,
          hubType: HUB_TYPE,
          orderData: order.orderData,
          paymentDetails: order.paymentDetails,
        },
      },
    };
  }

  private async priceRequest(
    request: PriceRequestDto | QuoteRequestDto,
    apiKey: AuthenticatedApiKey | null,
  ): Promise<Priced> {
    const parties = resolveParties(this.chains, request, this.settlement ?? DEFAULT_SETTLEMENT);
    const { origin, destination, currencyIn, currencyOut } = parties;
    const [book, originGas, destinationGas, userBalance, solverBalance] = await Promise.all([
      PriceBook.load(this.prices, [
        currencyIn,
        currencyOut,
        origin.nativeCurrency,
        destination.nativeCurrency,
      ]),
      this.reader.gasPrice(origin),
      this.reader.gasPrice(destination),
      this.reader.balance(origin, currencyIn, parties.user),
      this.reader.balance(destination, currencyOut, destination.solver),
    ]);
    refuseUnreadGasPrice(originGas, origin, this.config.environment);
    refuseUnreadGasPrice(destinationGas, destination, this.config.environment);
    const activationUsd =
      destination.vmType === 'perps-a'
        ? activationFeeUsd(await this.activation.isActivated(destination.id, parties.recipient))
        : null;
    const native = currencyIn.metadata.isNative === true;
    const quoteOptions = request as QuoteRequestDto;
    const sponsorshipAsked =
      quoteOptions.subsidizeFees === true || (quoteOptions.sponsoredFeeComponents?.length ?? 0) > 0;
    const pricedIn = book.priced(currencyIn);
    const sponsorCap =
      sponsorshipAsked && apiKey?.feeSponsorshipEnabled
        ? await this.sponsorCap(pricedIn.usdPrice, currencyIn.decimals, apiKey.sponsorAddress)
        : 0n;
    const priced = priceQuote({
      tradeType: request.tradeType,
      amount: BigInt(request.amount),
      currencyIn: pricedIn,
      currencyOut: book.priced(currencyOut),
      hasTxs: (request.txs?.length ?? 0) > 0,
      gasless: request.usePermit === true,
      originGas: {
        units: BigInt(native ? origin.gas.depositUnits : origin.gas.erc20DepositUnits),
        priceWei: originGas.priceWei,
        native: book.priced(origin.nativeCurrency),
      },
      destinationGas: {
        units: BigInt(destination.gas.fillUnits),
        priceWei: destinationGas.priceWei,
        native: book.priced(destination.nativeCurrency),
      },
      // Perps exchange A charges a new account's first deposit a 1 USD activation fee, passed through as the
      // destination's account-opening cost (docs/quotes.md).
      ...(activationUsd
        ? { destinationRent: usdInUnits(activationUsd, book.priced(destination.nativeCurrency)) }
        : {}),
      swapFeeBps: this.config.quotes.swapFeeBps,
      swapImpactBps: this.config.quotes.swapImpactBps,
      appFees: request.appFees?.map((fee) => ({ recipient: fee.recipient, fee: fee.fee })),
      slippageToleranceBps: request.slippageTolerance,
      ...(sponsorshipAsked
        ? {
            sponsorship: {
              subsidizeFees: quoteOptions.subsidizeFees,
              sponsoredFeeComponents: quoteOptions.sponsoredFeeComponents,
            },
            sponsor: apiKey?.feeSponsorshipEnabled ? { maxSubsidizationAmount: sponsorCap } : null,
          }
        : {}),
      useDepositAddress: request.useDepositAddress === true,
    });
    const calls = orderCallsFromTxs(request.txs ?? []);
    const output = {
      native: currencyOut.metadata.isNative === true,
      amount: BigInt(priced.currencyOut.amount),
      symbol: currencyOut.symbol,
    };
    refuseBeyondLiquidity(solverBalance, output.amount, destination, currencyOut);
    fundedCallValue(calls, output, destination);
    // Calls run with the output: simulate them so on a native output (an ERC-20 output cannot be funded in a
    // simulation without token-specific state; those run unsimulated, the executor keeps the funds safe).
    if (output.native) await this.refuseRevertingCalls(destination, calls, output.amount);
    return { parties, priced, userBalance };
  }

  /** 400 DESTINATION_CALL_REVERTED when a call reverts at the latest block as the executor's sandbox would run it. */
  private async refuseRevertingCalls(
    destination: QuoteParties['destination'],
    calls: ReturnType<typeof orderCallsFromTxs>,
    funding: bigint,
  ): Promise<void> {
    const failed = await this.reader.simulateCalls(destination, calls, funding);
    if (!failed) return;
    const call = calls[failed.index];
    throw new QuoteError(
      'DESTINATION_CALL_REVERTED',
      `txs[${failed.index}] reverts when simulated at block ${failed.block}`,
      { index: failed.index },
      {
        failedCallData: { from: failed.sandbox, to: call.to, data: call.data, value: call.value.toString() },
        approxSimulatedBlock: Number(failed.block),
      },
    );
  }

  /**
   * The per-quote sponsorship cap in input-currency units (rounded down): the configured USD cap, and no more than the
   * sponsor's available app-fee balance when the key pays from one (so a short balance shows as `capHit`).
   */
  private async sponsorCap(
    usdPrice: string,
    decimals: number,
    sponsorAddress: string | null,
  ): Promise<bigint> {
    let usd = Decimal.parse(this.config.quotes.maxSubsidizationUsd);
    if (sponsorAddress) {
      const budget = await this.appFees.sponsorBudgetUsd(sponsorAddress);
      if (budget.lt(usd)) usd = budget;
    }
    return toUnits(usd.div(Decimal.parse(usdPrice), 'floor'), decimals, 'floor');
  }

  /** The quote's `sponsor`: the app-fee balance that pays what it sponsors, when the key pays from one. */
  private async sponsorOf(
    apiKey: AuthenticatedApiKey | null,
    priced: PricedQuote,
  ): Promise<Pick<RequestQuotedData, 'sponsor'>> {
    const sponsored = priced.feeSponsorship?.record.sponsoredTotal;
    if (!apiKey?.sponsorAddress || !sponsored || BigInt(sponsored.amount) === 0n) return {};
    return { sponsor: await this.appFees.sponsorPayment(apiKey.sponsorAddress, sponsored.amountUsd) };
  }

  private order(
    request: PriceRequestDto,
    parties: QuoteParties,
    priced: PricedQuote,
    fillDeadline: Date,
  ): BuiltOrder {
    const { origin, destination } = parties;
    const deadline = Math.floor(fillDeadline.getTime() / 1000);
    return buildOrder({
      hubChainId: this.config.quotes.hubChainId,
      solverChainId: destination.name,
      solver: destination.solver,
      salt: `0x${randomBytes(32).toString('hex')}` as Hex,
      depository: origin.depository,
      inputs: [
        {
          payment: { chainId: origin.name, currency: parties.currencyIn.address, amount: priced.amountIn },
          refunds: [
            {
              chainId: origin.name,
              recipient: parties.refundRecipient,
              currency: parties.currencyIn.address,
              minimumAmount: priced.amountIn,
              deadline,
            },
          ],
        },
      ],
      output: {
        chainId: destination.name,
        payments: [
          {
            recipient: parties.recipient,
            currency: parties.currencyOut.address,
            minimumAmount: priced.minimumAmountOut,
            expectedAmount: priced.amountOut,
          },
        ],
        calls: orderCallsFromTxs(request.txs ?? []),
        deadline,
      },
      fees: priced.appFees.map((fee) => ({
        chainId: origin.name,
        recipient: fee.recipient,
        currency: parties.currencyIn.address,
        amount: BigInt(fee.amount),
      })),
    });
  }

  private async stepsInput(
    request: QuoteRequestDto,
    parties: QuoteParties,
    priced: PricedQuote,
    requestId: Hex,
    now: Date,
    quoteExpiresAt: Date,
  ): Promise<BuildStepsInput> {
    const { origin, currencyIn: currency, user } = parties;
    const base = {
      requestId,
      origin,
      currency,
      amount: priced.amountIn,
      user,
      usePermit: request.usePermit === true,
    };
    switch (origin.vmType) {
      case 'evm':
        return {
          ...base,
          vmType: 'evm',
          allowance: await this.reader.allowance(origin, currency, user, origin.depository),
          permitValidBefore: Math.floor(quoteExpiresAt.getTime() / 1000),
          depositAddress: request.useDepositAddress
            ? {
                type: request.depositAddressType ?? 'strict',
                recoveryAddress: request.recoveryAddress ?? null,
                refundTo: parties.refundTo,
              }
            : null,
        };
      case 'perps-a':
        return { ...base, vmType: 'perps-a', protocolVersion: request.protocolVersion, nonce: now.getTime() };
      case 'perps-b':
        return { ...base, vmType: 'perps-b', usdcFee: this.config.quotes.perpsBUsdcFee };
      case 'svm':
        return { ...base, vmType: 'svm', recentBlockhash: await this.svmBlockhash(origin) };
    }
  }

  /**
   * The SVM chain's latest blockhash from its RPC; without one the deposit cannot be built honestly, so the quote is
   * refused: 400 CHAIN_RPC_UNAVAILABLE (never a stand-in blockhash).
   */
  private async svmBlockhash(chain: ChainInfo): Promise<string> {
    const result = await this.svmBlockhashes.latestBlockhash(chain);
    if (!isSvmBlockhashUnavailable(result)) return result.blockhash;
    throw new QuoteError(
      'CHAIN_RPC_UNAVAILABLE',
      `Chain ${chain.id} (${chain.displayName}) cannot be quoted from now: ${result.detail}`,
      { chainId: chain.id, reason: result.unavailable },
    );
  }
}

/** A USD amount in a currency's smallest unit, rounded up (a fee). */
function usdInUnits(usd: string, currency: { readonly usdPrice: string; readonly decimals: number }): bigint {
  return toUnits(Decimal.parse(usd).div(Decimal.parse(currency.usdPrice), 'ceil'), currency.decimals, 'ceil');
}
