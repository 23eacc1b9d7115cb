import {
  Decimal,
  divide,
  formatPercent,
  formatUnits,
  formatUsd,
  fromUnits,
  toUnits,
} from '../../../../src/quotes/domain/pricing/decimal.js';

const d = (text: string) => Decimal.parse(text);
const UINT256_MAX = 2n ** 256n - 1n;

describe(Decimal.name, () => {
  describe('parse and toString', () => {
    it.each([
      ['0', '0'],
      ['-0', '0'],
      ['1', '1'],
      ['1.50', '1.5'],
      ['-12.000100', '-12.0001'],
      ['0.000000000000000001', '0.000000000000000001'],
      ['007.5', '7.5'],
    ])('reads %s as %s', (text, expected) => {
      expect(d(text).toString()).toBe(expected);
    });

    it.each(['', '.5', '1.', '1e18', '+1', '1,5', ' 1', 'NaN', '--1'])('rejects "%s"', (text) => {
      expect(() => d(text)).toThrow(RangeError);
    });

    it('refuses to drop digits past 18 decimals unless told how to round', () => {
      expect(() => d('0.0000000000000000015')).toThrow(/more than 18 fractional digits/);
      expect(Decimal.parse('0.0000000000000000015', 'floor').toString()).toBe('0.000000000000000001');
      expect(Decimal.parse('0.0000000000000000015', 'ceil').toString()).toBe('0.000000000000000002');
      expect(Decimal.parse('-0.0000000000000000015', 'floor').toString()).toBe('-0.000000000000000002');
      expect(Decimal.parse('-0.0000000000000000015', 'halfExpand').toString()).toBe('-0.000000000000000002');
      expect(Decimal.parse('0.0000000000000000010', 'floor').toString()).toBe('0.000000000000000001');
    });

    it('holds uint256 amounts exactly', () => {
      const max = Decimal.of(UINT256_MAX);
      expect(max.toString()).toBe(UINT256_MAX.toString());
      expect(max.add(Decimal.ONE).sub(Decimal.ONE).eq(max)).toBe(true);
      expect(max.mul(d('0.5'), 'floor').toString()).toBe(`${UINT256_MAX / 2n}.5`);
      expect(JSON.stringify({ v: max })).toBe(`{"v":"${UINT256_MAX}"}`);
    });
  });

  describe('arithmetic', () => {
    it('adds, subtracts and negates, across zero', () => {
      expect(d('0.1').add(d('0.2')).toString()).toBe('0.3');
      expect(d('0.02').sub(d('0.05')).toString()).toBe('-0.03');
      expect(d('-1.5').neg().toString()).toBe('1.5');
      expect(d('-1.5').abs().toString()).toBe('1.5');
      expect(Decimal.ZERO.neg().toString()).toBe('0');
    });

    it('multiplies and divides with the rounding asked for', () => {
      expect(d('0.02').div(d('3000'), 'ceil').toString()).toBe('0.000006666666666667');
      expect(d('0.02').div(d('3000'), 'floor').toString()).toBe('0.000006666666666666');
      expect(d('-0.02').div(d('3000'), 'floor').toString()).toBe('-0.000006666666666667');
      expect(d('-0.02').div(d('3000'), 'ceil').toString()).toBe('-0.000006666666666666');
      expect(d('-0.02').div(d('3000'), 'trunc').toString()).toBe('-0.000006666666666666');
      expect(d('1.5').mul(d('-2.25'), 'floor').toString()).toBe('-3.375');
      expect(d('0.000000000000000001').mul(d('0.5'), 'ceil').toString()).toBe('0.000000000000000001');
      expect(d('0.000000000000000001').mul(d('0.5'), 'floor').toString()).toBe('0');
      expect(d('-0.000000000000000001').mul(d('0.5'), 'floor').toString()).toBe('-0.000000000000000001');
    });

    it('refuses to divide by zero', () => {
      expect(() => d('1').div(Decimal.ZERO, 'floor')).toThrow(/Division by zero/);
      expect(() => divide(1n, 0n, 'floor')).toThrow(/Division by zero/);
    });

    it('compares', () => {
      expect(d('-1').compare(d('0.5'))).toBe(-1);
      expect(d('2.50').compare(d('2.5'))).toBe(0);
      expect(d('3').compare(d('2.999999999999999999'))).toBe(1);
      expect(d('-0.1').isNegative()).toBe(true);
      expect(d('0').isZero()).toBe(true);
      expect(d('0.1').isPositive()).toBe(true);
      expect(d('1').lte(d('1')) && d('1').gte(d('1')) && d('1').lt(d('2')) && d('2').gt(d('1'))).toBe(true);
    });
  });

  describe(divide.name, () => {
    it.each([
      [7n, 2n, 'floor', 3n],
      [7n, 2n, 'ceil', 4n],
      [7n, 2n, 'trunc', 3n],
      [7n, 2n, 'halfExpand', 4n],
      [-7n, 2n, 'floor', -4n],
      [-7n, 2n, 'ceil', -3n],
      [-7n, 2n, 'trunc', -3n],
      [-7n, 2n, 'halfExpand', -4n],
      [7n, -2n, 'floor', -4n],
      [-7n, -2n, 'ceil', 4n],
      [5n, 3n, 'halfExpand', 2n],
      [4n, 3n, 'halfExpand', 1n],
      [6n, 3n, 'ceil', 2n],
    ] as const)('%d / %d rounded %s is %d', (n, den, rounding, expected) => {
      expect(divide(n, den, rounding)).toBe(expected);
    });
  });

  describe('display', () => {
    it('writes USD with at most 6 decimals, half away from zero, trailing zeros trimmed', () => {
      expect(formatUsd(d('0.0200000000001'))).toBe('0.02');
      expect(formatUsd(d('1.0000005'))).toBe('1.000001');
      expect(formatUsd(d('1.0000004999'))).toBe('1');
      expect(formatUsd(d('-1.0000005'))).toBe('-1.000001');
      expect(formatUsd(d('-0.0000004'))).toBe('0');
      expect(formatUsd(d('12345678901234567890.5'))).toBe('12345678901234567890.5');
    });

    it('writes percentages with at most 4 decimals', () => {
      expect(formatPercent(d('-0.07026666'))).toBe('-0.0703');
      expect(formatPercent(d('0.5'))).toBe('0.5');
    });

    it('rounds to fewer places on request', () => {
      expect(d('2.345').format(2)).toBe('2.35');
      expect(d('2.345').format(2, 'floor')).toBe('2.34');
      expect(d('2.345').format(30)).toBe('2.345');
    });
  });
});

describe('units', () => {
  it('formats smallest units exactly, negative and uint256 included', () => {
    expect(formatUnits(1_500_000n, 6)).toBe('1.5');
    expect(formatUnits(-1_500_000n, 6)).toBe('-1.5');
    expect(formatUnits(1n, 18)).toBe('0.000000000000000001');
    expect(formatUnits(-1n, 24)).toBe('-0.000000000000000000000001');
    expect(formatUnits(0n, 6)).toBe('0');
    expect(formatUnits(123n, 0)).toBe('123');
    expect(formatUnits(UINT256_MAX, 18)).toBe(
      '115792089237316195423570985008687907853269984665640564039457.584007913129639935',
    );
  });

  it('converts between smallest units and decimals', () => {
    expect(fromUnits(1_234_567n, 6).toString()).toBe('1.234567');
    expect(fromUnits(-5n, 18).toString()).toBe('-0.000000000000000005');
    expect(toUnits(d('1.2345678'), 6, 'floor')).toBe(1_234_567n);
    expect(toUnits(d('1.2345678'), 6, 'ceil')).toBe(1_234_568n);
    expect(toUnits(d('-1.2345678'), 6, 'floor')).toBe(-1_234_568n);
    expect(toUnits(d('-1.2345678'), 6, 'ceil')).toBe(-1_234_567n);
    expect(toUnits(d('1.5'), 24, 'floor')).toBe(1_500_000_000_000_000_000_000_000n);
    expect(toUnits(Decimal.of(UINT256_MAX), 0, 'floor')).toBe(UINT256_MAX);
  });

  it('needs a rounding to read an amount of a currency with more than 18 decimals that does not fit', () => {
    expect(fromUnits(10n ** 6n, 24).toString()).toBe('0.000000000000000001');
    expect(() => fromUnits(1n, 24)).toThrow(/pass a rounding/);
    expect(fromUnits(1n, 24, 'ceil').toString()).toBe('0.000000000000000001');
    expect(fromUnits(-1n, 24, 'ceil').toString()).toBe('0');
  });
});
