import type { ChainInfo } from '../../../src/chains/chain.js';
import { QuoteError } from '../../../src/quotes/domain/quote-error.js';
import { assertSettleable } from '../../../src/quotes/settlement-support.js';

const chain = (
  id: number,
  vmType: ChainInfo['vmType'],
  rpcUrl: string | null = 'http://127.0.0.1:1',
): ChainInfo =>
  ({ id, displayName: `chain ${id}`, vmType, rpcUrl, rpcUrlVariable: `RPC_URL_${id}` }) as ChainInfo;

const refusal = (origin: ChainInfo, destination: ChainInfo) => {
  try {
    assertSettleable(origin, destination);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(QuoteError);
    return { code: (error as QuoteError).errorCode, data: (error as QuoteError).errorData };
  }
};

describe(assertSettleable.name, () => {
  it('lets an EVM route with RPCs on both ends through', () => {
    expect(refusal(chain(1, 'evm'), chain(2, 'evm'))).toBeNull();
  });

  it.each([
    ['svm', 'origin'],
    ['svm', 'destination'],
    ['perps-a', 'origin'],
    ['perps-a', 'destination'],
    ['perps-b', 'origin'],
    ['perps-b', 'destination'],
  ] as const)('refuses a %s chain as the %s: nothing reads or pays there', (vmType, side) => {
    const other = chain(1, 'evm');
    const odd = chain(9, vmType);
    const refused = side === 'origin' ? refusal(odd, other) : refusal(other, odd);
    expect(refused).toEqual({
      code: 'SETTLEMENT_UNAVAILABLE',
      data: expect.objectContaining({ chainId: 9, side, vmType }),
    });
  });

  it('refuses an EVM chain without an RPC in this environment, naming the variable', () => {
    expect(refusal(chain(1, 'evm'), chain(2, 'evm', null))).toEqual({
      code: 'SETTLEMENT_UNAVAILABLE',
      data: expect.objectContaining({ chainId: 2, side: 'destination', variable: 'RPC_URL_2' }),
    });
  });
});
