import { parseRevenueShareArgs } from '../../../src/cli/commands/api-keys-revenue-share.command.js';
import { revenueShareUsd, tierOf } from '../../../src/revenue-share/revenue-share-tiers.js';

describe('revenue-share tiers (spec Fees)', () => {
  it('starts above 10M USD and steps up above 100M USD', () => {
    expect(tierOf('0')).toBeNull();
    expect(tierOf('9999999.999999')).toBeNull();
    expect(tierOf('10000000')).toBeNull();
    expect(tierOf('10000000.000001')?.name).toBe('10M-100M');
    expect(tierOf('100000000')?.name).toBe('10M-100M');
    expect(tierOf('100000000.01')?.name).toBe('100M-1B');
    expect(tierOf('5000000000')?.name).toBe('100M-1B');
  });

  it('shares the spec’s percentages per transaction type, nothing on bridges, wraps and sends', () => {
    expect(tierOf('20000000')?.shares).toEqual({
      send: '0',
      'token-bridge': '0',
      'wrap-unwrap': '0',
      'stablecoin-swap': '0.34',
      'major-swap': '0.25',
      'minor-swap': '0.3333',
    });
    expect(tierOf('200000000')?.shares).toMatchObject({
      'stablecoin-swap': '0.67',
      'major-swap': '0.5',
      'minor-swap': '0.6667',
    });
  });

  it('computes the share in exact decimals', () => {
    expect(revenueShareUsd('6.123457', '0.25').toString()).toBe('1.53086425');
    expect(revenueShareUsd('0.15', '0.3333').toString()).toBe('0.049995');
    expect(revenueShareUsd('0.000001', '0.6667').toString()).toBe('0.0000006667');
  });
});

describe('api-keys:revenue-share arguments', () => {
  it('takes the key, the KYB flag and the payout address (none clears it)', () => {
    expect(parseRevenueShareArgs(['fk_abcdefg', '--kyb-verified', '--payout-address', '0xab'])).toEqual({
      idOrPrefix: 'fk_abcdefg',
      settings: { kybVerified: true, payoutAddress: '0xab' },
    });
    expect(parseRevenueShareArgs(['k', '--no-kyb-verified'])).toEqual({
      idOrPrefix: 'k',
      settings: { kybVerified: false },
    });
    expect(parseRevenueShareArgs(['k', '--payout-address=none'])).toEqual({
      idOrPrefix: 'k',
      settings: { payoutAddress: null },
    });
    expect(parseRevenueShareArgs(['k'])).toMatch(/give --kyb-verified/);
    expect(parseRevenueShareArgs(['--kyb-verified'])).toMatch(/is required/);
    expect(parseRevenueShareArgs(['k', '--payout-address'])).toMatch(/needs an EVM address/);
    expect(parseRevenueShareArgs(['k', '--kyb-verified', '--no-kyb-verified'])).toMatch(/once/);
    expect(parseRevenueShareArgs(['k', '--bogus'])).toBe('Unknown option --bogus');
  });
});
