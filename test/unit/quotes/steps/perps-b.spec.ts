import {
  buildSteps,
  type PerpsBStepsInput,
  type PerpsBTransferData,
} from '../../../../src/quotes/domain/steps/index.js';
import { chain, currency, expectQuoteError, requestId } from './fixtures.js';

const perpsUsdc = currency({
  chainId: 3586256,
  address: '0',
  symbol: 'USDC',
  decimals: 6,
  supportsPermit: false,
  eip712: undefined,
});
const perpsB = chain({ id: 3586256, name: 'perps-b', vmType: 'perps-b', solver: '281', depository: '281' });
const input = (overrides: Partial<PerpsBStepsInput> = {}): PerpsBStepsInput => ({
  vmType: 'perps-b',
  requestId,
  origin: perpsB,
  currency: perpsUsdc,
  amount: 50_000_000n,
  user: '17',
  usdcFee: 120_000n,
  ...overrides,
});

describe('Perps exchange B withdrawal', () => {
  it('returns one deposit transaction: a transfer to the solver account with the request id as memo', () => {
    const steps = buildSteps(input());
    expect(steps.map((step) => [step.id, step.kind, step.requestId])).toEqual([
      ['deposit', 'transaction', requestId],
    ]);
    expect(steps[0]?.items[0]?.data as PerpsBTransferData).toEqual({
      action: {
        type: 'transfer',
        parameters: {
          type: 'transfer',
          toAccountIndex: 281,
          assetIndex: 3,
          fromRouteType: 0,
          toRouteType: 0,
          amount: 50_000_000,
          usdcFee: 120_000,
          memo: requestId,
        },
      },
    });
  });

  it('makes the memo the hex of the request id', () => {
    const [step] = buildSteps(input());
    const { memo } = (step?.items[0]?.data as PerpsBTransferData).action.parameters;
    expect(memo).toMatch(/^0x[0-9a-f]{64}$/);
    expect(BigInt(memo)).toBe(BigInt(requestId));
  });

  it('takes route types from the input', () => {
    const [step] = buildSteps(input({ fromRouteType: 1, toRouteType: 0 }));
    expect((step?.items[0]?.data as PerpsBTransferData).action.parameters).toMatchObject({
      fromRouteType: 1,
      toRouteType: 0,
    });
  });

  it('refuses an amount a JSON number cannot hold exactly', () => {
    expectQuoteError(() => buildSteps(input({ amount: 2n ** 53n })), 'INVALID_INPUT', { field: 'amount' });
  });

  it('refuses a user that is not an account index', () => {
    expectQuoteError(() => buildSteps(input({ user: '0xabc' })), 'INVALID_ADDRESS', { field: 'user' });
  });

  it('refuses a currency other than perps USDC', () => {
    expectQuoteError(() => buildSteps(input({ currency: currency() })), 'UNSUPPORTED_CURRENCY');
  });

  it('refuses usePermit and deposit addresses, which are EVM-only', () => {
    expectQuoteError(() => buildSteps(input({ usePermit: true })), 'UNSUPPORTED_OPTION', {
      option: 'usePermit',
    });
    expectQuoteError(() => buildSteps(input({ depositAddress: { type: 'open' } })), 'UNSUPPORTED_OPTION', {
      option: 'useDepositAddress',
    });
  });
});
