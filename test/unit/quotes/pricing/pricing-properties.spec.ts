import {
  priceQuote,
  type PricedCurrency,
  type PriceQuoteInput,
} from '../../../../src/quotes/domain/pricing/index.js';
import { QuoteError } from '../../../../src/quotes/domain/quote-error.js';
import { APP, base, bnbChain, bridgeInput, ethereum, gas, OTHER_APP } from './fixtures.js';

/** A small seeded generator (mulberry32), so every run checks the same cases. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
  };
}

const routes: readonly { name: string; currencyIn: PricedCurrency; currencyOut: PricedCurrency }[] = [
  { name: 'USDC bridge', currencyIn: ethereum.USDC, currencyOut: base.USDC },
  { name: 'USDC bridge 6 → 18 decimals', currencyIn: ethereum.USDC, currencyOut: bnbChain.USDC },
  { name: 'USDC 18 → 6 decimals', currencyIn: bnbChain.USDC, currencyOut: base.USDC },
  { name: 'stablecoin swap', currencyIn: ethereum.USDC, currencyOut: base.USDT },
  { name: 'ETH → USDC', currencyIn: ethereum.ETH, currencyOut: base.USDC },
  { name: 'USDC → ETH', currencyIn: ethereum.USDC, currencyOut: base.ETH },
  { name: 'UNI → USDC', currencyIn: ethereum.UNI, currencyOut: base.USDC },
  { name: 'ETH → BNB', currencyIn: ethereum.ETH, currencyOut: bnbChain.BNB },
];

function scenario(seed: number): PriceQuoteInput {
  const r = random(seed);
  const route = r.pick(routes);
  const destinationGas = route.currencyOut.chainId === 56 ? gas.bnbFill : gas.baseFill;
  const sponsored = r.chance(0.3);
  return bridgeInput({
    currencyIn: route.currencyIn,
    currencyOut: route.currencyOut,
    destinationGas,
    amount: BigInt(r.int(1, 5_000)) * 10n ** BigInt(route.currencyOut.decimals - 1) + BigInt(r.int(0, 999)),
    gasless: r.chance(0.3),
    swapFeeBps: r.int(0, 30),
    swapImpactBps: r.int(0, 80),
    rebalancingBps: r.int(-10, 10),
    appFees: [APP, OTHER_APP]
      .slice(0, r.int(0, 2))
      .map((recipient) => ({ recipient, fee: `${r.int(0, 300)}` })),
    ...(sponsored
      ? {
          sponsorship: r.chance(0.5)
            ? { subsidizeFees: true }
            : { sponsoredFeeComponents: [r.pick(['execution', 'swap', 'relay', 'app'])] },
          sponsor: { maxSubsidizationAmount: BigInt(r.int(0, 2_000_000)) * 10n ** 12n },
        }
      : {}),
  });
}

const SEEDS = Array.from({ length: 150 }, (_, i) => i + 1);

describe('pricing properties', () => {
  it.each(SEEDS)(
    'EXACT_OUTPUT round trip (seed %d): the solved input buys the output, one unit less does not',
    (seed) => {
      const input = { ...scenario(seed), tradeType: 'EXACT_OUTPUT' as const };
      const solved = priceQuote(input);
      expect(solved.amountOut).toBe(input.amount);
      const forward = priceQuote({ ...input, tradeType: 'EXACT_INPUT', amount: solved.amountIn });
      expect(forward.amountOut).toBeGreaterThanOrEqual(input.amount);
      let lessOut = 0n;
      try {
        lessOut = priceQuote({ ...input, tradeType: 'EXACT_INPUT', amount: solved.amountIn - 1n }).amountOut;
      } catch (error) {
        expect(error).toBeInstanceOf(QuoteError);
      }
      expect(lessOut).toBeLessThan(input.amount);
    },
  );

  it.each(SEEDS)('EXACT_INPUT accounts for every unit (seed %d)', (seed) => {
    const input = scenario(seed);
    let sut;
    try {
      sut = priceQuote(input);
    } catch (error) {
      expect((error as QuoteError).errorCode).toBe('AMOUNT_TOO_LOW');
      return;
    }
    const units = sut.feeUnits;
    expect(units.total).toBe(units.execution + units.swap + units.platform + units.app);
    expect(units.execution).toBe(units.flatExecution + units.destinationGas + units.originGas + units.rent);
    expect(units.userPays).toBe(units.total - units.sponsored);
    expect(sut.appFees.reduce((sum, fee) => sum + BigInt(fee.amount), 0n)).toBe(units.app);
    expect(units.sponsored).toBeGreaterThanOrEqual(0n);
    if (input.sponsor && input.currencyIn === ethereum.USDC) {
      expect(units.sponsored).toBeLessThanOrEqual(input.sponsor.maxSubsidizationAmount);
    }
    expect(sut.minimumAmountOut).toBeLessThanOrEqual(sut.amountOut);
    expect(sut.amountOut).toBeGreaterThan(0n);
    if (sut.transactionType === 'token-bridge' || input.currencyIn.symbol === input.currencyOut.symbol) {
      const scale = 10n ** BigInt(Math.abs(input.currencyOut.decimals - input.currencyIn.decimals));
      const net = input.amount - units.userPays;
      const expected = input.currencyOut.decimals >= input.currencyIn.decimals ? net * scale : net / scale;
      expect(sut.amountOut).toBe(expected);
    }
  });

  it.each(SEEDS.slice(0, 40))(
    'every Amount object carries minimumAmount; only the output has slippage (seed %d)',
    (seed) => {
      let sut;
      try {
        sut = priceQuote(scenario(seed));
      } catch (error) {
        expect((error as QuoteError).errorCode).toBe('AMOUNT_TOO_LOW');
        return;
      }
      const amounts = amountObjectsIn(sut);
      // currencyIn, currencyOut, six fees, four sponsorship totals.
      expect(amounts.length).toBeGreaterThanOrEqual(12);
      for (const amount of amounts) expect(amount.minimumAmount).toMatch(/^-?[0-9]+$/);
      for (const fee of Object.values(sut.quoteFees)) expect(fee.minimumAmount).toBe(fee.amount);
      expect(sut.currencyIn.minimumAmount).toBe(sut.currencyIn.amount);
      expect(sut.currencyOut.minimumAmount).toBe(sut.minimumAmountOut.toString());
      expect(sut.shownSponsorship.quoted.sponsoredTotal.minimumAmount).toBe(
        sut.shownSponsorship.quoted.sponsoredTotal.amount,
      );
    },
  );

  it('handles uint256-sized amounts exactly', () => {
    const huge = 2n ** 255n;
    const sut = priceQuote(bridgeInput({ amount: huge }));
    expect(sut.amountOut).toBe(huge - 23_000n);
    const back = priceQuote(bridgeInput({ tradeType: 'EXACT_OUTPUT', amount: huge }));
    expect(back.amountIn).toBe(huge + 23_000n);
  });
});

/** Every object with `currency` and `amount` (an Amount object) anywhere in a value. */
function amountObjectsIn(value: unknown): { amount: string; minimumAmount?: string }[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(amountObjectsIn);
  const record = value as Record<string, unknown>;
  const here =
    'currency' in record && typeof record.amount === 'string' ? [record as { amount: string }] : [];
  return [...here, ...Object.values(record).flatMap(amountObjectsIn)];
}
