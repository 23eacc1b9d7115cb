import { withinCap } from '../../../src/solver/fee-cap.js';

describe(withinCap.name, () => {
  it('leaves fees under the cap as they are', () => {
    expect(withinCap({ maxFeePerGas: 90n, maxPriorityFeePerGas: 2n }, 100n)).toEqual({
      maxFeePerGas: 90n,
      maxPriorityFeePerGas: 2n,
    });
  });

  it('cuts a fee cap above the cap to it, and a tip above that to the fee cap: never a bid past the cap', () => {
    expect(withinCap({ maxFeePerGas: 601n, maxPriorityFeePerGas: 1n }, 100n)).toEqual({
      maxFeePerGas: 100n,
      maxPriorityFeePerGas: 1n,
    });
    expect(withinCap({ maxFeePerGas: 10_001n, maxPriorityFeePerGas: 10_000n }, 100n)).toEqual({
      maxFeePerGas: 100n,
      maxPriorityFeePerGas: 100n,
    });
  });
});
