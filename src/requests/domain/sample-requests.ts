import { paidAppFees } from './paid-app-fees.js';
import type { RequestCommand } from './request-decide.js';
import type { RequestQuotedData } from './request-events.js';
import type { Amount, Currency, FeePhase } from './records.js';

/**
 * Realistic request data for tests, benchmarks and local demos: a USDC bridge or swap between the two development
 * chains. Everything derives from `n`, so the same n gives the same request.
 */
export function sampleRequestId(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}${'ab'.repeat(28)}`;
}

const hex40 = (n: number, salt: string) => `0x${salt}${n.toString(16).padStart(40 - salt.length, '0')}`;

export const sampleCurrency = (chainId: number, symbol = 'USDC', decimals = 6): Currency => ({
  chainId,
  address: symbol === 'ETH' ? '0x0000000000000000000000000000000000000000' : hex40(chainId, 'c0'),
  symbol,
  name: symbol === 'ETH' ? 'Ether' : 'USD Coin',
  decimals,
  metadata: {
    logoURI: `https://assets.example/${symbol.toLowerCase()}.png`,
    verified: true,
    isNative: symbol === 'ETH',
  },
});

const amount = (currency: Currency, units: bigint, usd: string): Amount => ({
  currency,
  amount: units.toString(),
  amountFormatted: formatUnits(units, currency.decimals),
  amountUsd: usd,
  minimumAmount: ((units * 995n) / 1000n).toString(),
});

export function formatUnits(units: bigint, decimals: number): string {
  const text = units.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

export interface SampleOptions {
  readonly quotedAt?: string;
  readonly apiKeyId?: string | null;
  readonly referrer?: string | null;
  readonly originChainId?: number;
  readonly destinationChainId?: number;
  readonly symbolOut?: string;
  readonly withDepositAddress?: boolean;
  readonly appFeeBps?: number;
}

/** A quote as the quote endpoint would record it. */
export function sampleQuote(n: number, options: SampleOptions = {}): RequestQuotedData {
  const quotedAt = options.quotedAt ?? new Date(Date.UTC(2026, 10, 1) + n * 60_000).toISOString();
  const origin = options.originChainId ?? 31337;
  const destination = options.destinationChainId ?? 31338;
  const usdcIn = sampleCurrency(origin);
  const out = sampleCurrency(destination, options.symbolOut ?? 'USDC');
  const units = BigInt(1_000_000 + (n % 1000) * 1_000_000);
  const usd = formatUnits(units, 6);
  const appFeeBps = options.appFeeBps ?? (n % 3 === 0 ? 50 : 0);
  const appFee = (units * BigInt(appFeeBps)) / 10_000n;
  const user = hex40(n, 'aa');
  const fees: FeePhase = {
    swap: { usd: '0', amount: '0', amountFormatted: '0' },
    execution: { usd: '0.02', amount: '20000', amountFormatted: '0.02' },
    platform: { usd: '0', amount: '0', amountFormatted: '0' },
    app: { usd: formatUnits(appFee, 6), amount: appFee.toString(), amountFormatted: formatUnits(appFee, 6) },
    sponsored: { usd: '0', amount: '0', amountFormatted: '0' },
  };
  const outUnits = units - 20_000n - appFee;
  const requestId = sampleRequestId(n);
  return {
    requestId,
    quotedAt,
    apiKeyId: options.apiKeyId ?? null,
    referrer: options.referrer ?? null,
    user,
    sender: user,
    recipient: n % 5 === 0 ? hex40(n, 'bb') : user,
    refundTo: null,
    requestType:
      origin === destination ? 'Same-chain Swap' : out.symbol === 'USDC' ? 'Bridge' : 'Crosschain Swap',
    operation: origin === destination || out.symbol !== 'USDC' ? 'swap' : 'bridge',
    features: appFeeBps > 0 ? ['app_fees'] : [],
    originChainId: origin,
    destinationChainId: destination,
    currencyIn: amount(usdcIn, units, usd),
    currencyOut: amount(out, outUnits, formatUnits(outUnits, 6)),
    currencyGasTopup: null,
    refundCurrency: null,
    rate: '0.98',
    slippageTolerance: '50',
    timeEstimate: 12,
    usesExternalLiquidity: false,
    fees,
    feeCurrency: usdcIn,
    appFees:
      appFeeBps > 0
        ? [
            {
              recipient: hex40(7, 'fe'),
              bps: String(appFeeBps),
              amount: appFee.toString(),
              amountFormatted: formatUnits(appFee, 6),
            },
          ]
        : [],
    appFeeCurrency: usdcIn,
    feeSponsorship: null,
    sponsorshipCurrency: null,
    route: {
      origin: {
        inputCurrency: amount(usdcIn, units, usd),
        outputCurrency: amount(usdcIn, units, usd),
        router: 'ferry',
      },
      destination:
        origin === destination
          ? null
          : {
              inputCurrency: amount(out, outUnits, formatUnits(outUnits, 6)),
              outputCurrency: amount(out, outUnits, formatUnits(outUnits, 6)),
              router: 'ferry',
            },
      includedSwapSources: [],
      includedOriginSwapSources: [],
      includedDestinationSwapSources: [],
    },
    protocol: {
      orderId: requestId,
      hubType: 'onchain',
      isWithdrawable: false,
      orderData: {
        version: 'v1',
        solverChainId: String(destination),
        solver: hex40(1, '50'),
        salt: String(n),
      },
      paymentDetails: {
        chainId: String(origin),
        depository: hex40(origin, 'de'),
        currency: usdcIn.address,
        amount: units.toString(),
      },
      solver: { address: hex40(1, '50'), protocolChainId: String(destination), chainId: destination },
    },
    depositAddress: options.withDepositAddress
      ? {
          address: hex40(n, 'dd'),
          type: 'strict',
          depositor: null,
          depositTxHash: null,
          recoveryAddress: user,
        }
      : null,
    quoteOraclePrice: null,
    externalMetadata: { moonpayId: null },
    quoteExpiresAt: new Date(Date.parse(quotedAt) + 10 * 60_000).toISOString(),
    depositConfirmationTimeoutSeconds: 600,
    fillDeadline: new Date(Date.parse(quotedAt) + 60 * 60_000).toISOString(),
  };
}

const txHash = (n: number, kind: number) =>
  `0x${kind.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}`;
const later = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();

/** The commands that take a sample quote through to `success` (deposit seen, final, fill sent, fill landed). */
export function sampleLifecycle(quote: RequestQuotedData, n: number): RequestCommand[] {
  const depositTx = {
    chainId: quote.originChainId,
    txHash: txHash(n, 1),
    block: 1000 + n,
    timestamp: Date.parse(quote.quotedAt) / 1000 + 5,
    fee: '21000000000000',
  };
  const fillTx = {
    chainId: quote.destinationChainId,
    txHash: txHash(n, 2),
    block: 2000 + n,
    timestamp: Date.parse(quote.quotedAt) / 1000 + 15,
    fee: '35000000000000',
  };
  const deposit = {
    ...depositTx,
    amount: quote.currencyIn.amount,
    currency: quote.currencyIn.currency.address,
    depositor: quote.user,
    depository: quote.protocol.paymentDetails.depository,
  };
  return [
    { type: 'RecordQuote', data: quote },
    { type: 'DetectDeposit', data: { ...deposit, detectedAt: later(quote.quotedAt, 5) } },
    { type: 'ConfirmDeposit', data: { ...deposit, confirmedAt: later(quote.quotedAt, 7) } },
    {
      type: 'SubmitFill',
      data: { chainId: fillTx.chainId, txHash: fillTx.txHash, submittedAt: later(quote.quotedAt, 9) },
    },
    {
      type: 'RecordFillSuccess',
      data: {
        ...fillTx,
        currencyOut: quote.currencyOut,
        rate: quote.rate,
        fees: quote.fees,
        appFees: paidAppFees(quote),
        feeSponsorship: null,
        completedAt: later(quote.quotedAt, 15),
      },
    },
  ];
}
