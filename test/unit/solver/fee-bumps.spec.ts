import { raised, replacementFees } from '../../../src/solver/fee-bumps.js';

describe(replacementFees.name, () => {
  const old = { maxFeePerGas: 2_000n, maxPriorityFeePerGas: 1_000n };

  it('raises both fees by at least 12.5 % (nodes refuse a smaller replacement) and leaves room for the base fee to double', () => {
    expect(replacementFees(old, 20_000n, 500n, 1_000_000n)).toEqual({
      maxFeePerGas: 2n * 20_000n + 1_125n,
      maxPriorityFeePerGas: 1_125n,
    });
    // A base fee below the old fee: the 12.5 % still applies.
    expect(replacementFees(old, 100n, 0n, 1_000_000n)).toEqual({
      maxFeePerGas: 2_250n,
      maxPriorityFeePerGas: 1_125n,
    });
  });

  it("bids no more than the chain's cap, and nothing when the cap leaves no fee above the base fee", () => {
    expect(replacementFees(old, 20_000n, 500n, 30_000n)).toEqual({
      maxFeePerGas: 30_000n,
      maxPriorityFeePerGas: 1_125n,
    });
    expect(replacementFees(old, 20_000n, 500n, 20_000n)).toBeNull();
    // The cap below a valid replacement of what was signed (signed during an earlier spike): it waits.
    expect(
      replacementFees({ maxFeePerGas: 50_000n, maxPriorityFeePerGas: 1n }, 60_000n, 1n, 55_000n),
    ).toBeNull();
    // A chain tip above the cap (a node answering nonsense): the tip is cut to the fee cap, never past it.
    expect(replacementFees(old, 100n, 50_000n, 30_000n)).toEqual({
      maxFeePerGas: 30_000n,
      maxPriorityFeePerGas: 30_000n,
    });
  });

  it('rounds the 12.5 % up', () => {
    expect(raised(1n)).toBe(2n);
    expect(raised(8n)).toBe(9n);
    expect(raised(0n)).toBe(0n);
  });
});
