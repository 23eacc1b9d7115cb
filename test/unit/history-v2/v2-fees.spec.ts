import {
  isPositiveDecimal,
  sponsoredFeeUnits,
  v2ExpandedPriceImpact,
  v2Fees,
} from '../../../projections/requests-v2/v2-fees.js';
import type { RequestV3 } from '../../../projections/requests/request-record-state.js';
import type { FeePhase } from '../../../src/requests/domain/records.js';
import { sampleCurrency } from '../../../src/requests/domain/sample-requests.js';

const c = (usd: string, amount?: string) =>
  amount === undefined ? { usd } : { usd, amount, amountFormatted: usd };
const quoted: FeePhase = {
  swap: c('0.15', '150000'),
  execution: c('0.05', '50000'),
  platform: c('0.06', '60000'),
  app: c('0.5', '500000'),
  sponsored: c('0', '0'),
};
const fees = (actual: FeePhase | null): RequestV3['data']['fees'] => ({
  quoted,
  actual,
  currency: sampleCurrency(31337),
});

describe(v2Fees.name, () => {
  it('splits execution into fixed (0.02 USD) and gas, and maps swap → price, platform → gateway', () => {
    expect(v2Fees(fees(null))).toEqual({
      fees: { gas: '30000', fixed: '20000', price: '150000', gateway: '60000' },
      feesUsd: { gas: '0.03', fixed: '0.02', price: '0.15', gateway: '0.06' },
    });
  });

  it('uses the collected fees once the fill succeeded', () => {
    const actual: FeePhase = { ...quoted, execution: c('0.1', '100000'), swap: c('0.2', '200000') };
    expect(v2Fees(fees(actual))).toEqual({
      fees: { gas: '80000', fixed: '20000', price: '200000', gateway: '60000' },
      feesUsd: { gas: '0.08', fixed: '0.02', price: '0.2', gateway: '0.06' },
    });
  });

  it('keeps the quoted amount where the collected component carries USD only', () => {
    const actual: FeePhase = { ...quoted, execution: c('0.04'), swap: c('0.1') };
    expect(v2Fees(fees(actual))).toEqual({
      fees: { gas: '30000', fixed: '20000', price: '150000', gateway: '60000' },
      feesUsd: { gas: '0.02', fixed: '0.02', price: '0.1', gateway: '0.06' },
    });
  });

  it('never makes the fixed part larger than the execution fee, nor negative', () => {
    const small = { ...quoted, execution: c('0.01', '10000') };
    expect(v2Fees({ ...fees(null), quoted: small }).fees).toMatchObject({ gas: '0', fixed: '10000' });
    expect(v2Fees({ ...fees(null), quoted: small }).feesUsd).toMatchObject({ gas: '0', fixed: '0.01' });
    const free = { ...quoted, execution: c('0', '0') };
    expect(v2Fees({ ...fees(null), quoted: free })).toMatchObject({
      fees: { gas: '0', fixed: '0' },
      feesUsd: { gas: '0', fixed: '0' },
    });
  });

  it('rounds the fixed part down to a whole unit at the fee’s own rate', () => {
    const eth = { ...quoted, execution: c('3.3', '1000000000000000') };
    const { fees: raw } = v2Fees({ ...fees(null), quoted: eth });
    expect(raw.fixed).toBe('6060606060606');
    expect(BigInt(raw.gas) + BigInt(raw.fixed)).toBe(1000000000000000n);
  });

  it('keeps a negative swap fee (a rebalancing reward) as it is', () => {
    const reward = { ...quoted, swap: c('-0.01', '-10000') };
    expect(v2Fees({ ...fees(null), quoted: reward })).toMatchObject({
      fees: { price: '-10000' },
      feesUsd: { price: '-0.01' },
    });
  });
});

describe(v2ExpandedPriceImpact.name, () => {
  it('is the USD breakdown with relay for platform, collected values first', () => {
    expect(v2ExpandedPriceImpact(fees(null))).toEqual({
      swap: { usd: '-0.15' },
      execution: { usd: '-0.05' },
      relay: { usd: '-0.06' },
      app: { usd: '-0.5' },
      sponsored: { usd: '0' },
    });
    expect(v2ExpandedPriceImpact(fees({ ...quoted, platform: c('0.07') })).relay).toEqual({ usd: '-0.07' });
  });
});

describe(sponsoredFeeUnits.name, () => {
  it('is the sponsored component in the fee currency’s smallest unit', () => {
    expect(sponsoredFeeUnits(fees({ ...quoted, sponsored: c('0.02', '20000') }))).toBe('20000');
    expect(sponsoredFeeUnits(fees(null))).toBe('0');
  });
});

describe(isPositiveDecimal.name, () => {
  it.each([
    ['0.000001', true],
    ['12', true],
    ['0', false],
    ['0.000', false],
    ['-0.5', false],
    ['', false],
  ])('%j → %s', (value, expected) => expect(isPositiveDecimal(value)).toBe(expected));
});
