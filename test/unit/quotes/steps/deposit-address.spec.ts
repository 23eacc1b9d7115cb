import { getAddress, getContractAddress, keccak256, stringToBytes } from 'viem';
import {
  buildDepositAddress,
  buildSteps,
  DEPOSIT_ADDRESS_INIT_CODE_HASH,
  depositAddressOf,
  depositAddressSalt,
  type DepositAddressParameters,
  deriveDepositAddress,
  type EvmStepsInput,
  type EvmTransactionData,
} from '../../../../src/quotes/domain/steps/index.js';
import {
  chain,
  currency,
  DEPOSITORY,
  evmNative,
  expectQuoteError,
  otherAccount,
  otherRequestId,
  requestId,
  userAccount,
} from './fixtures.js';

const user = userAccount.address;
const parameters: DepositAddressParameters = {
  requestId,
  depository: getAddress(DEPOSITORY),
  type: 'strict',
  user,
};
const input = (overrides: Partial<EvmStepsInput> = {}): EvmStepsInput => ({
  vmType: 'evm',
  requestId,
  origin: chain(),
  currency: evmNative,
  amount: 10n ** 17n,
  user,
  allowance: null,
  depositAddress: { type: 'strict' },
  ...overrides,
});

describe(deriveDepositAddress.name, () => {
  it('is the CREATE2 address from the depository with the documented salt and init-code hash', () => {
    expect(DEPOSIT_ADDRESS_INIT_CODE_HASH).toBe(
      keccak256(stringToBytes('ferry.deposit-address.forwarder.v1')),
    );
    expect(deriveDepositAddress(parameters)).toBe(
      getContractAddress({
        opcode: 'CREATE2',
        from: getAddress(DEPOSITORY),
        salt: depositAddressSalt(parameters),
        bytecodeHash: DEPOSIT_ADDRESS_INIT_CODE_HASH,
      }),
    );
  });

  it('is deterministic', () => {
    expect(deriveDepositAddress(parameters)).toBe(deriveDepositAddress({ ...parameters }));
  });

  it('differs per request, per type, per recovery address and per depository', () => {
    const addresses = [
      deriveDepositAddress(parameters),
      deriveDepositAddress({ ...parameters, requestId: otherRequestId }),
      deriveDepositAddress({ ...parameters, type: 'open' }),
      deriveDepositAddress({ ...parameters, recoveryAddress: otherAccount.address }),
      deriveDepositAddress({ ...parameters, depository: otherAccount.address }),
    ];
    expect(new Set(addresses).size).toBe(addresses.length);
  });

  it('defaults the recovery address to refundTo, then to the user', () => {
    expect(buildDepositAddress(parameters).recoveryAddress).toBe(user);
    expect(buildDepositAddress({ ...parameters, refundTo: otherAccount.address }).recoveryAddress).toBe(
      otherAccount.address,
    );
    expect(deriveDepositAddress({ ...parameters, refundTo: otherAccount.address })).toBe(
      deriveDepositAddress({ ...parameters, recoveryAddress: otherAccount.address }),
    );
  });

  it('records the user as depositor when strict, nobody when open', () => {
    expect(buildDepositAddress(parameters)).toMatchObject({ type: 'strict', depositor: user });
    expect(buildDepositAddress({ ...parameters, type: 'open' })).toMatchObject({
      type: 'open',
      depositor: null,
    });
  });
});

describe('useDepositAddress steps', () => {
  it('returns one plain native transfer to the deposit address, which the step names', () => {
    const steps = buildSteps(input());
    const address = deriveDepositAddress(parameters);
    expect(steps.map((step) => [step.id, step.kind, step.depositAddress])).toEqual([
      ['deposit', 'transaction', address],
    ]);
    expect(steps[0]?.items[0]?.data as EvmTransactionData).toEqual({
      from: user,
      to: address,
      data: '0x',
      value: '100000000000000000',
      chainId: 31337,
    });
  });

  it("gives the request record's depositAddress for the same address, and null without the option", () => {
    const [step] = buildSteps(input({ depositAddress: { type: 'strict', refundTo: otherAccount.address } }));
    expect(
      depositAddressOf(input({ depositAddress: { type: 'strict', refundTo: otherAccount.address } })),
    ).toEqual({
      address: step?.depositAddress,
      type: 'strict',
      depositor: user,
      recoveryAddress: otherAccount.address,
    });
    expect(depositAddressOf(input({ depositAddress: null }))).toBeNull();
  });

  it('uses the open address for open deposits', () => {
    const [step] = buildSteps(input({ depositAddress: { type: 'open' } }));
    expect(step?.depositAddress).toBe(deriveDepositAddress({ ...parameters, type: 'open' }));
  });

  it('rejects deposit addresses for ERC-20 deposits', () => {
    expectQuoteError(() => buildSteps(input({ currency: currency() })), 'UNSUPPORTED_OPTION', {
      option: 'useDepositAddress',
    });
  });

  it('rejects a recovery address that is not an EVM address', () => {
    expectQuoteError(
      () => buildSteps(input({ depositAddress: { type: 'strict', recoveryAddress: 'nope' } })),
      'INVALID_ADDRESS',
      { field: 'recoveryAddress' },
    );
  });
});
