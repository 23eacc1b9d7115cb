import { priceQuote } from '../../../../src/quotes/domain/pricing/index.js';
import { bridgeInput } from './fixtures.js';

describe('gasless deposits (usePermit)', () => {
  const normal = priceQuote(bridgeInput());
  const gasless = priceQuote(bridgeInput({ gasless: true }));

  it('charges the origin gas (3 USD) in the execution fee when the solver pays it', () => {
    expect(gasless.feeUnits.originGas).toBe(3_000_000n);
    expect(gasless.fees.execution).toEqual({ usd: '3.023', amount: '3023000', amountFormatted: '3.023' });
    expect(gasless.currencyOut.amount).toBe('96977000');
  });

  it('leaves the origin gas out of the fee when the user pays the network directly', () => {
    expect(normal.feeUnits.originGas).toBe(0n);
    expect(normal.fees.execution.amount).toBe('23000');
  });

  it('moves the origin gas from `gas` to `relayerGas` in the deprecated fees', () => {
    expect(normal.quoteFees.gas.amount).toBe('1000000000000000');
    expect(gasless.quoteFees.gas).toMatchObject({ amount: '0', amountUsd: '0' });
    expect(gasless.quoteFees.relayerGas).toMatchObject({ amount: '3003000', amountUsd: '3.003' });
    expect(gasless.quoteFees.relayer).toMatchObject({ amount: '3023000', amountUsd: '3.023' });
  });
});
