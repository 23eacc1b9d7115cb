import { requestFeatures } from '../../../src/requests/domain/request-features.js';

describe(requestFeatures.name, () => {
  it('keeps the spec names as they are', () => {
    expect(requestFeatures(['gasless_execution', 'app_fees', 'deposit_address'])).toEqual([
      'gasless_execution',
      'app_fees',
      'deposit_address',
    ]);
  });

  it('reads requests recorded before the spec names: permit is gasless_execution, fee_sponsorship and calls are none', () => {
    expect(requestFeatures(['app_fees', 'permit', 'fee_sponsorship', 'calls'])).toEqual([
      'app_fees',
      'gasless_execution',
    ]);
  });

  it('lists a feature once when old and new names meet', () => {
    expect(requestFeatures(['permit', 'gasless_execution'])).toEqual(['gasless_execution']);
  });
});
