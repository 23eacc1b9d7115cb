import {
  decodeFunctionData,
  encodePacked,
  getAddress,
  keccak256,
  parseSignature,
  verifyTypedData,
} from 'viem';
import { depositoryAbi } from '../../../../src/chains/abi/depository.js';
import {
  buildPermitTypedData,
  buildSteps,
  type EvmStepsInput,
  type PermitParameters,
  permitDepositCalldata,
  permitNonce,
  type SignatureData,
  verifyPermitSignature,
} from '../../../../src/quotes/domain/steps/index.js';
import {
  chain,
  currency,
  DEPOSITORY,
  evmNative,
  expectQuoteError,
  expectQuoteErrorAsync,
  otherAccount,
  otherRequestId,
  requestId,
  USDC,
  userAccount,
} from './fixtures.js';

const user = userAccount.address;
const amount = 25_000_000n;
const validBefore = 1_893_456_000;
const input = (overrides: Partial<EvmStepsInput> = {}): EvmStepsInput => ({
  vmType: 'evm',
  requestId,
  origin: chain(),
  currency: currency(),
  amount,
  user,
  allowance: null,
  usePermit: true,
  permitValidBefore: validBefore,
  ...overrides,
});
const permit: PermitParameters = {
  requestId,
  chainId: 31337,
  token: getAddress(USDC),
  tokenDomain: { name: 'USD Coin', version: '2' },
  user,
  depository: getAddress(DEPOSITORY),
  amount,
  validAfter: 0,
  validBefore,
};

describe('usePermit (EIP-3009)', () => {
  it('returns a single authorize signature step, no approval and no deposit transaction', () => {
    const steps = buildSteps(input());
    expect(steps.map((step) => [step.id, step.kind])).toEqual([['authorize', 'signature']]);
  });

  it('asks for ReceiveWithAuthorization under the token domain, to the depository, with an order-bound nonce', () => {
    const [step] = buildSteps(input());
    const { sign, post } = step?.items[0]?.data as SignatureData;
    expect(sign).toEqual({
      signatureKind: 'eip712',
      domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: getAddress(USDC) },
      types: {
        ReceiveWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'ReceiveWithAuthorization',
      value: {
        from: user,
        to: getAddress(DEPOSITORY),
        value: '25000000',
        validAfter: '0',
        validBefore: String(validBefore),
        nonce: keccak256(encodePacked(['string', 'bytes32'], ['FerryPermit', requestId])),
      },
    });
    expect(post).toEqual({
      endpoint: '/execute/permits',
      method: 'POST',
      body: { kind: 'permit', requestId },
    });
  });

  it('derives a different nonce for every order', () => {
    expect(permitNonce(requestId)).not.toBe(permitNonce(otherRequestId));
  });

  it('accepts a signature a wallet makes from the JSON step (decimal strings) on the execute path', async () => {
    const [step] = buildSteps(input());
    const { sign } = step?.items[0]?.data as SignatureData;
    const signature = await userAccount.signTypedData({
      domain: sign.domain,
      types: sign.types,
      primaryType: sign.primaryType,
      message: sign.value,
    } as Parameters<typeof userAccount.signTypedData>[0]);
    await expect(verifyPermitSignature(permit, signature)).resolves.toBeUndefined();
    await expect(
      verifyTypedData({ ...buildPermitTypedData(permit), address: user, signature }),
    ).resolves.toBe(true);
  });

  it('rejects a signature by another account', async () => {
    const signature = await otherAccount.signTypedData(buildPermitTypedData(permit));
    await expectQuoteErrorAsync(verifyPermitSignature(permit, signature), 'INVALID_SIGNATURE', {
      expected: user,
      recovered: otherAccount.address,
    });
  });

  it('rejects a signature of another amount', async () => {
    const signature = await userAccount.signTypedData(
      buildPermitTypedData({ ...permit, amount: amount + 1n }),
    );
    await expectQuoteErrorAsync(verifyPermitSignature(permit, signature), 'INVALID_SIGNATURE');
  });

  it('rejects a malformed signature', async () => {
    await expectQuoteErrorAsync(verifyPermitSignature(permit, '0x1234'), 'INVALID_SIGNATURE');
  });

  it("turns a verified signature into the relayer's depositErc20WithAuthorization calldata", async () => {
    const signature = await userAccount.signTypedData(buildPermitTypedData(permit));
    const { r, s, v } = parseSignature(signature);
    const call = decodeFunctionData({ abi: depositoryAbi, data: permitDepositCalldata(permit, signature) });
    expect(call.functionName).toBe('depositErc20WithAuthorization');
    expect(call.args).toEqual([
      user,
      getAddress(USDC),
      amount,
      requestId,
      0n,
      BigInt(validBefore),
      permitNonce(requestId),
      Number(v),
      r,
      s,
    ]);
  });

  it('rejects usePermit on a currency without EIP-3009', () => {
    expectQuoteError(
      () => buildSteps(input({ currency: currency({ supportsPermit: false, eip712: undefined }) })),
      'UNSUPPORTED_OPTION',
      { option: 'usePermit' },
    );
  });

  it('rejects usePermit on the native currency', () => {
    expectQuoteError(() => buildSteps(input({ currency: evmNative })), 'UNSUPPORTED_OPTION', {
      option: 'usePermit',
    });
  });
});
