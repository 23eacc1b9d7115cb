import { decodeFunctionData, getAddress } from 'viem';
import { depositoryAbi } from '../../../../src/chains/abi/depository.js';
import { erc20Abi } from '../../../../src/chains/abi/erc20.js';
import {
  buildSteps,
  type EvmStepsInput,
  type EvmTransactionData,
  type Step,
} from '../../../../src/quotes/domain/steps/index.js';
import {
  chain,
  currency,
  DEPOSITORY,
  evmNative,
  expectQuoteError,
  requestId,
  USDC,
  userAccount,
} from './fixtures.js';

const user = userAccount.address;
const amount = 1_500_000n;
const input = (overrides: Partial<EvmStepsInput> = {}): EvmStepsInput => ({
  vmType: 'evm',
  requestId,
  origin: chain(),
  currency: currency(),
  amount,
  user,
  allowance: null,
  ...overrides,
});
const dataOf = (step: Step | undefined) => step?.items[0]?.data as EvmTransactionData;

describe(buildSteps.name, () => {
  describe('EVM native deposit', () => {
    const sut = () => buildSteps(input({ currency: evmNative, amount: 10n ** 18n }));

    it('returns one deposit transaction calling depositNative(user, orderId) with the amount as value', () => {
      const steps = sut();
      expect(steps.map((step) => [step.id, step.kind])).toEqual([['deposit', 'transaction']]);
      const data = dataOf(steps[0]);
      expect(data).toMatchObject({
        from: user,
        to: getAddress(DEPOSITORY),
        value: '1000000000000000000',
        chainId: 31337,
      });
      const call = decodeFunctionData({ abi: depositoryAbi, data: data.data });
      expect(call.functionName).toBe('depositNative');
      expect(call.args).toEqual([user, requestId]);
    });

    it('carries the spec step fields: request id, empty deposit address, incomplete item, v3 status check', () => {
      const [step] = sut();
      expect(step).toMatchObject({ requestId, depositAddress: '' });
      expect(step?.items).toHaveLength(1);
      expect(step?.items[0]).toMatchObject({
        status: 'incomplete',
        check: { endpoint: `/intents/status/v3?requestId=${requestId}`, method: 'GET' },
      });
    });

    it('adds the gas fields given, as decimal strings', () => {
      const [step] = buildSteps(
        input({ currency: evmNative, gas: { gas: 21_000n, maxFeePerGas: 3n * 10n ** 9n } }),
      );
      expect(dataOf(step)).toMatchObject({ gas: '21000', maxFeePerGas: '3000000000' });
      expect(dataOf(step)).not.toHaveProperty('maxPriorityFeePerGas');
    });

    it('is plain JSON (no bigints), so it is stored and served as it is', () => {
      const steps = sut();
      expect(JSON.parse(JSON.stringify(steps))).toEqual(steps);
    });

    it('lowercases the request id it is given', () => {
      const [step] = buildSteps(
        input({ currency: evmNative, requestId: `0x${requestId.slice(2).toUpperCase()}` }),
      );
      expect(step?.requestId).toBe(requestId);
    });
  });

  describe('EVM ERC-20 deposit', () => {
    it('includes the approval when the allowance is unknown', () => {
      const steps = buildSteps(input({ allowance: null }));
      expect(steps.map((step) => step.id)).toEqual(['approve', 'deposit']);
    });

    it('includes the approval when the allowance is short of the amount', () => {
      const steps = buildSteps(input({ allowance: amount - 1n }));
      expect(steps.map((step) => step.id)).toEqual(['approve', 'deposit']);
    });

    it('skips the approval when the allowance covers the amount', () => {
      const steps = buildSteps(input({ allowance: amount }));
      expect(steps.map((step) => step.id)).toEqual(['deposit']);
    });

    it('approves exactly the amount to the depository, with calldata and value 0', () => {
      const [approve] = buildSteps(input());
      const data = dataOf(approve);
      expect(data).toMatchObject({ from: user, to: getAddress(USDC), value: '0', chainId: 31337 });
      const call = decodeFunctionData({ abi: erc20Abi, data: data.data });
      expect(call.functionName).toBe('approve');
      expect(call.args).toEqual([getAddress(DEPOSITORY), amount]);
    });

    it('gives the approval no status check and the deposit the v3 status check (Relay SDK polls a check to success)', () => {
      const [approve, deposit] = buildSteps(input());
      expect(approve?.items[0]).not.toHaveProperty('check');
      expect(deposit?.items[0]?.check).toEqual({
        endpoint: `/intents/status/v3?requestId=${requestId}`,
        method: 'GET',
      });
    });

    it('deposits with depositErc20(user, token, amount, orderId) and no value', () => {
      const [, deposit] = buildSteps(input());
      const data = dataOf(deposit);
      expect(data).toMatchObject({ from: user, to: getAddress(DEPOSITORY), value: '0' });
      const call = decodeFunctionData({ abi: depositoryAbi, data: data.data });
      expect(call.functionName).toBe('depositErc20');
      expect(call.args).toEqual([user, getAddress(USDC), amount, requestId]);
    });

    it("gives the approval the fee caps but not the deposit's gas limit", () => {
      const gas = { gas: 90_000n, maxFeePerGas: 7n, maxPriorityFeePerGas: 1n };
      const [approve, deposit] = buildSteps(input({ gas }));
      expect(dataOf(approve)).toMatchObject({ maxFeePerGas: '7', maxPriorityFeePerGas: '1' });
      expect(dataOf(approve)).not.toHaveProperty('gas');
      expect(dataOf(deposit)).toMatchObject({ gas: '90000', maxFeePerGas: '7', maxPriorityFeePerGas: '1' });
    });

    it('rejects a user that is not an EVM address', () => {
      expectQuoteError(() => buildSteps(input({ user: 'not-an-address' })), 'INVALID_ADDRESS', {
        field: 'user',
      });
    });
  });

  it('refuses a negative amount', () => {
    expectQuoteError(() => buildSteps(input({ amount: -1n })), 'INVALID_INPUT', { field: 'amount' });
  });

  it('refuses an input whose vm type is not its origin chain', () => {
    expect(() => buildSteps(input({ origin: chain({ vmType: 'svm' }) }))).toThrow(TypeError);
  });
});
