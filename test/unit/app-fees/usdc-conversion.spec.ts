import {
  convertUsdcUnits,
  usdFeeToUsdcUnits,
  usdToUsdcUnits,
} from '../../../src/app-fees/domain/usdc-conversion.js';

describe('app-fee USDC conversion', () => {
  it('converts a USD value to USDC units at the USDC price, rounding down at 6 decimals', () => {
    expect(usdToUsdcUnits('0.6', '1', 6)).toBe(600000n);
    expect(usdToUsdcUnits('1.2345679', '1', 6)).toBe(1234567n);
    expect(usdToUsdcUnits('1', '0.9998', 6)).toBe(1000200n); // 1.000200040008… USDC
    expect(usdToUsdcUnits('1', '1.0001', 6)).toBe(999900n); // 0.99990000999… USDC
    expect(usdToUsdcUnits('0.0000009', '1', 6)).toBe(0n);
    expect(usdToUsdcUnits('123456789012.123456789', '1', 6)).toBe(123456789012123456n);
  });

  it('rounds a fee charged in USDC up', () => {
    expect(usdFeeToUsdcUnits('0.1', '1', 6)).toBe(100000n);
    expect(usdFeeToUsdcUnits('0.1', '0.9998', 6)).toBe(100021n); // 0.100020004… USDC
  });

  it('converts USDC units to another currency exactly, rounding down', () => {
    const usdc = { decimals: 6, usdPrice: '1' };
    expect(convertUsdcUnits(3_000_000n, usdc, { decimals: 18, usdPrice: '3000' })).toBe(10n ** 15n);
    expect(convertUsdcUnits(1n, usdc, { decimals: 18, usdPrice: '3000' })).toBe(333333333n);
    expect(convertUsdcUnits(1_000_000n, usdc, { decimals: 6, usdPrice: '1' })).toBe(1_000_000n);
    expect(convertUsdcUnits(1_000_000n, usdc, { decimals: 18, usdPrice: '1' })).toBe(10n ** 18n);
  });

  it('refuses a zero or negative price rather than dividing by it', () => {
    expect(() => usdToUsdcUnits('1', '0', 6)).toThrow(RangeError);
    expect(() =>
      convertUsdcUnits(1n, { decimals: 6, usdPrice: '1' }, { decimals: 6, usdPrice: '0' }),
    ).toThrow(RangeError);
  });
});
