import { readFileSync } from 'node:fs';
import { getAddress, getContractAddress, type Hex, keccak256 } from 'viem';
import {
  buildDepositAddress,
  buildSteps,
  DEPOSIT_RECEIVER_INIT_CODE_HASH,
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
  evmNative,
  expectQuoteError,
  otherAccount,
  otherRequestId,
  requestId,
  userAccount,
} from './fixtures.js';

const user = userAccount.address;
const FACTORY = getAddress('0xa513E6E4b8f2a923D98304ec87F64353C4D5C853');
const parameters: DepositAddressParameters = {
  requestId,
  factory: FACTORY,
  type: 'strict',
  user,
};
const input = (overrides: Partial<EvmStepsInput> = {}): EvmStepsInput => ({
  vmType: 'evm',
  requestId,
  origin: chain({ depositAddressFactory: FACTORY }),
  currency: evmNative,
  amount: 10n ** 17n,
  user,
  allowance: null,
  depositAddress: { type: 'strict' },
  ...overrides,
});

describe(deriveDepositAddress.name, () => {
  it("is the CREATE2 address from the factory with the factory's salt and the receiver's real init code", () => {
    const artifact = JSON.parse(
      readFileSync(
        new URL('../../../../contracts/artifacts/FerryDepositReceiver.json', import.meta.url),
        'utf8',
      ),
    ) as { bytecode: Hex };
    expect(DEPOSIT_RECEIVER_INIT_CODE_HASH).toBe(keccak256(artifact.bytecode));
    expect(deriveDepositAddress(parameters)).toBe(
      getContractAddress({
        opcode: 'CREATE2',
        from: FACTORY,
        salt: depositAddressSalt(requestId, 'strict', user),
        bytecodeHash: DEPOSIT_RECEIVER_INIT_CODE_HASH,
      }),
    );
  });

  it('is deterministic', () => {
    expect(deriveDepositAddress(parameters)).toBe(deriveDepositAddress({ ...parameters }));
  });

  it('differs per request, per type, per recovery address and per factory', () => {
    const addresses = [
      deriveDepositAddress(parameters),
      deriveDepositAddress({ ...parameters, requestId: otherRequestId }),
      deriveDepositAddress({ ...parameters, type: 'open' }),
      deriveDepositAddress({ ...parameters, recoveryAddress: otherAccount.address }),
      deriveDepositAddress({ ...parameters, factory: otherAccount.address }),
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

  it('has no depositor and no depositTxHash before a transfer is recorded', () => {
    expect(buildDepositAddress(parameters)).toMatchObject({
      type: 'strict',
      depositor: null,
      depositTxHash: null,
    });
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
      depositor: null,
      depositTxHash: null,
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

describe('useDepositAddress without a factory on the origin chain', () => {
  it('is refused with DEPOSIT_ADDRESS_UNAVAILABLE', () => {
    expectQuoteError(() => buildSteps(input({ origin: chain() })), 'DEPOSIT_ADDRESS_UNAVAILABLE', {
      option: 'useDepositAddress',
    });
  });
});
