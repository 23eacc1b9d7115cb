import {
  DELAYED_MIN_MS,
  NOT_APPLICABLE,
  toV2Record,
  v2Status,
} from '../../../projections/requests-v2/v2-record.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import type { RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import type { Amount, SponsorshipPhase } from '../../../src/requests/domain/records.js';
import { sampleCurrency, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { recordAfter } from '../../support/request-events.js';
import { scenario } from '../status/request-scenarios.js';

const fold = (commands: RequestCommand[]) => recordAfter(commands);
const NOW = new Date('2026-11-22T12:00:00Z');

describe(toV2Record.name, () => {
  const quote = sampleQuote(3, { referrer: 'wallet.example', appFeeBps: 50, withDepositAddress: true });
  const paths = scenario(quote, 3);
  const done = toV2Record(fold(paths.success), NOW);

  it('puts sender, recipient and the amounts under data.metadata (v3: root and data.route)', () => {
    // What was deposited, as the chain reported it: no slippage left, its minimum is the amount.
    const deposited = {
      ...quote.route.origin.inputCurrency,
      minimumAmount: quote.route.origin.inputCurrency.amount,
    };
    expect(done.data.metadata).toEqual({
      sender: quote.sender,
      recipient: quote.recipient,
      currencyIn: deposited,
      currencyOut: quote.currencyOut,
      rate: quote.rate,
      currencyGasTopup: null,
      route: {
        origin: { ...quote.route.origin, inputCurrency: deposited, includedSwapSources: [] },
        destination: { ...quote.route.destination!, includedSwapSources: [] },
      },
    });
    const record = done as unknown as Record<string, unknown>;
    for (const v3Only of [
      'sender',
      'recipient',
      'refundTo',
      'requestType',
      'features',
      'supersededByRequestId',
    ]) {
      expect(record).not.toHaveProperty(v3Only);
    }
    for (const v3Only of ['route', 'externalMetadata', 'referrer', 'quoteOraclePrice']) {
      expect(done.data).not.toHaveProperty(v3Only);
    }
  });

  it('names transaction hashes `hash`, not `txHash`', () => {
    expect(done.data.inTxs).toEqual([
      expect.objectContaining({ hash: paths.depositHash, status: 'success' }),
    ]);
    expect(done.data.outTxs).toEqual([expect.objectContaining({ hash: paths.fillHash, status: 'success' })]);
    expect(done.data.inTxs[0]).not.toHaveProperty('txHash');
  });

  it('writes N/A for absent fail reasons (v3: null)', () => {
    expect(done.data.failReason).toBe(NOT_APPLICABLE);
    expect(done.data.refundFailReason).toBe(NOT_APPLICABLE);
    const refundFailed = toV2Record(fold(paths.refundFailed), NOW);
    expect(refundFailed.status).toBe('failure');
    expect(refundFailed.data.failReason).toBe('FILL_REVERTED');
    expect(refundFailed.data.refundFailReason).toBe('REFUND_REVERTED');
    const refunded = toV2Record(fold(paths.refunded), NOW);
    expect([refunded.status, refunded.data.failReason, refunded.data.refundFailReason]).toEqual([
      'refund',
      'FILL_REVERTED',
      NOT_APPLICABLE,
    ]);
  });

  it('writes AMOUNT_TOO_LOW_TO_REFUND for a refund skipped as dust, the request still failed', () => {
    const skipped = toV2Record(fold(paths.refundSkipped), NOW);
    expect([skipped.status, skipped.data.failReason, skipped.data.refundFailReason]).toEqual([
      'failure',
      'FILL_REVERTED',
      'AMOUNT_TOO_LOW_TO_REFUND',
    ]);
    expect(fold(paths.refundSkipped).v3.data).toMatchObject({
      failReason: 'FILL_REVERTED',
      refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      refundCurrencyData: null,
    });
  });

  it('writes UNKNOWN for a refund with no recorded reason (the webhook rule)', () => {
    const { recordQuote, detect, confirm, refundSuccess } = paths;
    const refund: RequestCommand = { ...paths.submitRefund };
    const refunded = toV2Record(fold([recordQuote, detect, confirm, refund, refundSuccess]), NOW);
    expect([refunded.status, refunded.data.failReason]).toEqual(['refund', 'UNKNOWN']);
  });

  it('hoists the referrer and the on-ramp id to the root, and the deposit address to a string', () => {
    expect(done.referrer).toBe('wallet.example');
    expect(done.moonpayId).toBeNull();
    expect(done.depositAddress).toBe(quote.depositAddress!.address);
    const withRamp = sampleQuote(5, { withDepositAddress: false });
    const ramped = toV2Record(
      fold(scenario({ ...withRamp, externalMetadata: { moonpayId: 'mp-123' } }, 5).success),
      NOW,
    );
    expect(ramped.moonpayId).toBe('mp-123');
    expect(ramped.depositAddress).toBeNull();
    expect(ramped.referrer).toBeNull();
  });

  it('keeps supersededByRequestId under data (v3: root)', () => {
    const successor = `0x${'cd'.repeat(32)}`;
    const superseded = toV2Record(
      fold([
        paths.recordQuote,
        {
          type: 'SupersedeRequest',
          data: { supersededByRequestId: successor, supersededAt: quote.quotedAt },
        },
      ]),
      NOW,
    );
    expect(superseded.data.supersededByRequestId).toBe(successor);
    expect(done.data.supersededByRequestId).toBeNull();
  });

  it('splits app fees into appFees (quoted) and paidAppFees (collected)', () => {
    expect(done.data.appFees).toEqual(quote.appFees);
    expect(done.data.paidAppFees).toEqual([
      { ...quote.appFees[0], amountUsd: quote.appFees[0].amountFormatted },
    ]);
    const waiting = toV2Record(fold([paths.recordQuote]), NOW);
    expect(waiting.data.appFees).toEqual(quote.appFees);
    expect(waiting.data.paidAppFees).toEqual([]);
  });

  it('spells the currencies out: currency/currencyObject, feeCurrency/feeCurrencyObject, appFeeCurrencyObject', () => {
    const usdcOut = quote.currencyOut.currency;
    expect(done.data.currency).toBe('usdc');
    expect(done.data.currencyObject).toEqual(usdcOut);
    expect(done.data.feeCurrency).toBe('usdc');
    expect(done.data.feeCurrencyObject).toEqual(quote.feeCurrency);
    expect(done.data.appFeeCurrencyObject).toEqual(quote.appFeeCurrency);
  });

  it('gives data.price as the quoted output (v3: route.actual.destination.inputCurrency)', () => {
    expect(done.data.price).toBe(quote.route.destination!.inputCurrency.amount);
    const sameChain = sampleQuote(6, { destinationChainId: 31337, symbolOut: 'ETH' });
    const swap = toV2Record(fold(scenario(sameChain, 6).success.slice(0, 3)), NOW);
    expect(sameChain.route.destination).toBeNull();
    expect(swap.data.price).toBe(sameChain.route.origin.outputCurrency.amount);
    expect(swap.data.metadata.route.destination).toBeNull();
  });

  it('renders raw fees, USD fees and the expanded price impact with relay for platform, costs negative', () => {
    expect(done.data.fees).toEqual({ gas: '0', fixed: '20000', price: '0', gateway: '0' });
    expect(done.data.feesUsd).toEqual({ gas: '0', fixed: '0.02', price: '0', gateway: '0' });
    expect(done.data.expandedPriceImpact).toEqual({
      swap: { usd: '0' },
      execution: { usd: '-0.02' },
      relay: { usd: '0' },
      app: { usd: quote.fees.app.usd === '0' ? '0' : `-${quote.fees.app.usd}` },
      sponsored: { usd: '0' },
    });
  });

  it('renders fee sponsorship with the relay component, no hoisted currency and no sponsor payment', () => {
    const sponsored = sponsoredQuote(7);
    const paths7 = scenario(sponsored, 7);
    const actual = {
      ...sponsored.feeSponsorship!,
      sponsorPayment: { amount: '20000', address: '0x1', chainId: 31337 },
    };
    const fillSuccess: RequestCommand = {
      type: 'RecordFillSuccess',
      data: { ...(paths7.fillSuccess.data as object), feeSponsorship: actual } as never,
    };
    const sut = toV2Record(fold([...paths7.success.slice(0, 4), fillSuccess]), NOW);
    expect(sut.data.feeSponsorship).not.toHaveProperty('currency');
    expect(sut.data.feeSponsorship!.quoted!.selectedComponents).toEqual(['execution', 'relay']);
    expect(Object.keys(sut.data.feeSponsorship!.quoted!.components).sort()).toEqual([
      'app',
      'execution',
      'relay',
      'rent',
      'swap',
    ]);
    expect(sut.data.feeSponsorship!.quoted!.components.relay).toEqual(
      sponsored.feeSponsorship!.components.platform,
    );
    expect(sut.data.feeSponsorship!.actual).not.toHaveProperty('sponsorPayment');
    expect(sut.data.subsidizedRequest).toBe(true);
    expect(sut.data.subsidizedFee).toBe('20000');
    expect(done.data.feeSponsorship).toBeNull();
    expect(done.data.subsidizedRequest).toBe(false);
    expect(done.data.subsidizedFee).toBe('0');
  });
});

describe(v2Status.name, () => {
  const quote = sampleQuote(8);
  const paths = scenario(quote, 8);
  const seenAt = Date.parse(quote.quotedAt) + 5_000;
  const at = (ms: number) => new Date(seenAt + ms);

  it('maps depositing and submitted (not in v2) to pending', () => {
    expect(v2Status(fold(paths.depositing), new Date(quote.quotedAt))).toBe('pending');
    expect(v2Status(fold(paths.success.slice(0, 4)), at(0))).toBe('pending');
    expect(v2Status(fold(paths.success.slice(0, 3)), at(0))).toBe('pending');
  });

  it('keeps waiting, success, failure and refund as they are, however long ago', () => {
    const later = new Date('2030-01-01T00:00:00Z');
    expect(v2Status(fold([paths.recordQuote]), later)).toBe('waiting');
    expect(v2Status(fold(paths.expired), later)).toBe('waiting');
    expect(v2Status(fold(paths.success), later)).toBe('success');
    expect(v2Status(fold(paths.refundFailed), later)).toBe('failure');
    expect(v2Status(fold(paths.refunded), later)).toBe('refund');
  });

  it('is delayed once in flight for more than 5 minutes when 3 × the estimate is shorter', () => {
    const pending = fold(paths.success.slice(0, 3));
    expect(pending.v3.data.timeEstimate).toBe(12);
    expect(v2Status(pending, at(DELAYED_MIN_MS))).toBe('pending');
    expect(v2Status(pending, at(DELAYED_MIN_MS + 1))).toBe('delayed');
    expect(v2Status(fold(paths.success.slice(0, 4)), at(DELAYED_MIN_MS + 1))).toBe('delayed');
  });

  it('is delayed after 3 × the time estimate when that is longer than 5 minutes', () => {
    const slow = sampleQuote(9);
    const pending = fold(scenario({ ...slow, timeEstimate: 600 }, 9).success.slice(0, 3));
    const seen = Date.parse(slow.quotedAt) + 5_000;
    expect(v2Status(pending, new Date(seen + 1_800_000))).toBe('pending');
    expect(v2Status(pending, new Date(seen + 1_800_001))).toBe('delayed');
  });

  it('counts a deposit handed in through the execute API from the quote', () => {
    const depositing = fold(paths.depositing);
    const quoted = Date.parse(quote.quotedAt);
    expect(v2Status(depositing, new Date(quoted + DELAYED_MIN_MS))).toBe('pending');
    expect(v2Status(depositing, new Date(quoted + DELAYED_MIN_MS + 1))).toBe('delayed');
    expect(toV2Record(depositing, new Date(quoted + DELAYED_MIN_MS + 1)).status).toBe('delayed');
  });
});

/** A sample quote whose execution and platform fees the integrator sponsors. */
function sponsoredQuote(n: number): RequestQuotedData {
  const quote = sampleQuote(n);
  const usdc = sampleCurrency(quote.originChainId);
  const amount = (units: string, usd: string): Amount => ({
    currency: usdc,
    amount: units,
    amountFormatted: usd,
    amountUsd: usd,
    minimumAmount: units,
  });
  const component = (selected: boolean, total: string) => ({
    selected,
    total,
    sponsored: selected ? total : '0',
    userPays: selected ? '0' : total,
  });
  const phase: SponsorshipPhase = {
    selectedComponents: ['execution', 'platform'],
    capHit: false,
    components: {
      execution: component(true, '20000'),
      swap: component(false, '0'),
      platform: component(true, '0'),
      app: component(false, '0'),
      rent: component(false, '0'),
    },
    sponsoredTotal: amount('20000', '0.02'),
    userPaysTotal: amount('0', '0'),
    maxSubsidizationAmount: '1000000',
  };
  return {
    ...quote,
    fees: { ...quote.fees, sponsored: { usd: '0.02', amount: '20000', amountFormatted: '0.02' } },
    feeSponsorship: phase,
    sponsorshipCurrency: usdc,
  };
}
