import { getAddress, type Hex, stringToHex, zeroAddress } from 'viem';
import {
  buildNonceMappingTypedData,
  buildSteps,
  type NonceMappingBody,
  type NonceMappingExpectation,
  type PerpsASendAssetData,
  type PerpsAStepsInput,
  perpsADexOf,
  type SignatureData,
  verifyNonceMappingSignature,
} from '../../../../src/quotes/domain/steps/index.js';
import {
  chain,
  currency,
  DEPOSITORY,
  expectQuoteError,
  expectQuoteErrorAsync,
  otherAccount,
  otherRequestId,
  requestId,
  SOLVER,
  userAccount,
} from './fixtures.js';

const PERPS_USDC = `0x${'0'.repeat(32)}`;
const SPOT_USDC = '0x0123456789abcdef0123456789abcdef';
const perpsUsdc = currency({
  chainId: 1337,
  address: PERPS_USDC,
  symbol: 'USDC',
  decimals: 8,
  supportsPermit: false,
  eip712: undefined,
});
const spotUsdc = currency({ chainId: 1337, address: SPOT_USDC, symbol: 'USDC', decimals: 8 });
const perpsA = chain({
  id: 1337,
  name: 'perps-a',
  vmType: 'perps-a',
  currencies: [perpsUsdc, spotUsdc],
});
const user = userAccount.address;
const nonce = 1_793_509_740_123;
const input = (overrides: Partial<PerpsAStepsInput> = {}): PerpsAStepsInput => ({
  vmType: 'perps-a',
  requestId,
  origin: perpsA,
  currency: perpsUsdc,
  amount: 1_234_500_000n,
  user,
  protocolVersion: 'v2',
  nonce,
  ...overrides,
});
const expectation: NonceMappingExpectation = {
  perpsChainName: 'perps-a',
  walletChainId: 1337,
  verifyingContract: getAddress(DEPOSITORY),
  requestId,
  wallet: user,
  depositor: user,
  nonce,
};

/** Signs the authorize step as a wallet does (chain id replaced by the wallet's) and returns the posted body. */
async function signAuthorize(account = userAccount, walletChainId = 1) {
  const [authorize] = buildSteps(input({ signatureChainId: walletChainId }));
  const { sign, post } = authorize?.items[0]?.data as SignatureData;
  const signature = await account.signTypedData({
    domain: sign.domain,
    types: sign.types,
    primaryType: sign.primaryType,
    message: sign.value,
  } as Parameters<typeof account.signTypedData>[0]);
  return { signature, body: post.body as unknown as NonceMappingBody };
}

describe('Perps exchange A withdrawal', () => {
  it('refuses a withdrawal without protocolVersion v2', () => {
    expectQuoteError(() => buildSteps(input({ protocolVersion: undefined })), 'UNSUPPORTED_OPTION', {
      option: 'protocolVersion',
    });
    expectQuoteError(() => buildSteps(input({ protocolVersion: 'v1' })), 'UNSUPPORTED_OPTION');
  });

  it('returns authorize (signature) then deposit (transaction), sharing one nonce', () => {
    const steps = buildSteps(input());
    expect(steps.map((step) => [step.id, step.kind])).toEqual([
      ['authorize', 'signature'],
      ['deposit', 'transaction'],
    ]);
    const authorize = steps[0]?.items[0]?.data as SignatureData;
    const deposit = steps[1]?.items[0]?.data as PerpsASendAssetData;
    expect(authorize.sign.value.nonce).toBe(nonce);
    expect(authorize.post.body.nonce).toBe(nonce);
    expect(deposit.nonce).toBe(nonce);
    expect(deposit.action.parameters.nonce).toBe(nonce);
  });

  it('signs a NonceMapping under the neutral domain, default chain id 1, and posts it to /authorize', () => {
    const [authorize] = buildSteps(input());
    const data = authorize?.items[0]?.data as SignatureData;
    expect(data.sign).toEqual({
      signatureKind: 'eip712',
      domain: {
        name: 'FerryNonceMapping',
        version: '2',
        chainId: 1,
        verifyingContract: getAddress(DEPOSITORY),
      },
      types: {
        NonceMapping: [
          { name: 'chainId', type: 'string' },
          { name: 'wallet', type: 'address' },
          { name: 'depositor', type: 'address' },
          { name: 'id', type: 'bytes32' },
          { name: 'nonce', type: 'uint256' },
        ],
      },
      primaryType: 'NonceMapping',
      value: { chainId: 'perps-a', wallet: user, depositor: user, nonce, id: requestId },
    });
    expect(data.post).toEqual({
      endpoint: '/authorize',
      method: 'POST',
      body: {
        type: 'nonce-mapping',
        walletChainId: 1337,
        wallet: user,
        depositor: user,
        nonce,
        id: requestId,
        signatureChainId: 1,
      },
    });
  });

  it('sends the amount in human units to the solver with the sendAsset action and its EIP-712 types', () => {
    const [, deposit] = buildSteps(input());
    expect(deposit?.items[0]?.data).toEqual({
      action: {
        type: 'sendAsset',
        parameters: {
          perpsChain: 'Mainnet',
          destination: SOLVER,
          sourceDex: '',
          destinationDex: '',
          token: `USDC:${SPOT_USDC}`,
          amount: '12.345',
          fromSubAccount: '',
          nonce,
        },
      },
      nonce,
      eip712Types: {
        'FerryTransaction:SendAsset': [
          { name: 'perpsChain', type: 'string' },
          { name: 'destination', type: 'string' },
          { name: 'sourceDex', type: 'string' },
          { name: 'destinationDex', type: 'string' },
          { name: 'token', type: 'string' },
          { name: 'amount', type: 'string' },
          { name: 'fromSubAccount', type: 'string' },
          { name: 'nonce', type: 'uint64' },
        ],
      },
      eip712PrimaryType: 'FerryTransaction:SendAsset',
    });
  });

  it('can be signed under the exchange domain as clients do (action parameters plus type and signatureChainId)', async () => {
    const [, deposit] = buildSteps(input());
    const data = deposit?.items[0]?.data as PerpsASendAssetData;
    const signature = await userAccount.signTypedData({
      domain: { name: 'FerrySignTransaction', version: '1', chainId: 42161, verifyingContract: zeroAddress },
      types: data.eip712Types,
      primaryType: data.eip712PrimaryType,
      message: { ...data.action.parameters, type: data.action.type, signatureChainId: '0xa4b1' },
    } as Parameters<typeof userAccount.signTypedData>[0]);
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
  });

  it('sends spot and third-party dex currencies from their dex', () => {
    expect(perpsADexOf(PERPS_USDC)).toEqual({ dex: '', spotId: PERPS_USDC });
    expect(perpsADexOf(SPOT_USDC)).toEqual({ dex: 'spot', spotId: SPOT_USDC });
    const thirdParty = `${SPOT_USDC}${stringToHex('xyz').slice(2)}`;
    expect(perpsADexOf(thirdParty)).toEqual({ dex: 'xyz', spotId: SPOT_USDC });
    const [, deposit] = buildSteps(input({ currency: { ...spotUsdc, symbol: 'PURR' } }));
    expect((deposit?.items[0]?.data as PerpsASendAssetData).action.parameters).toMatchObject({
      sourceDex: 'spot',
      destinationDex: 'spot',
      token: `PURR:${SPOT_USDC}`,
    });
  });

  describe(verifyNonceMappingSignature.name, () => {
    it("accepts the wallet's signature of the posted body", async () => {
      const { signature, body } = await signAuthorize();
      await expect(verifyNonceMappingSignature(body, signature, expectation)).resolves.toBeUndefined();
    });

    it("accepts a signature under the wallet's active chain id, as clients override it", async () => {
      const { signature, body } = await signAuthorize(userAccount, 42161);
      expect(body.signatureChainId).toBe(42161);
      await expect(verifyNonceMappingSignature(body, signature, expectation)).resolves.toBeUndefined();
    });

    it('ignores keys clients add to the body (referrer)', async () => {
      const { signature, body } = await signAuthorize();
      const withReferrer = { ...body, referrer: 'some-app' };
      await expect(
        verifyNonceMappingSignature(withReferrer, signature, expectation),
      ).resolves.toBeUndefined();
    });

    it('rejects a signature by another wallet', async () => {
      const { signature, body } = await signAuthorize(otherAccount);
      await expectQuoteErrorAsync(
        verifyNonceMappingSignature(body, signature, expectation),
        'INVALID_SIGNATURE',
        {
          recovered: otherAccount.address,
        },
      );
    });

    it("rejects a body whose nonce is not the quote's", async () => {
      const { signature, body } = await signAuthorize();
      await expectQuoteErrorAsync(
        verifyNonceMappingSignature({ ...body, nonce: nonce + 1 }, signature, expectation),
        'INVALID_SIGNATURE',
        { field: 'nonce' },
      );
    });

    it('rejects a signature over another nonce, even with the right body', async () => {
      const typedData = buildNonceMappingTypedData({ ...expectation, nonce: nonce + 1, signatureChainId: 1 });
      const signature = await userAccount.signTypedData(typedData);
      const { body } = await signAuthorize();
      await expectQuoteErrorAsync(
        verifyNonceMappingSignature(body, signature, expectation),
        'INVALID_SIGNATURE',
      );
    });

    it('rejects a body for another request, or one posted with another signatureChainId than signed', async () => {
      const { signature, body } = await signAuthorize();
      await expectQuoteErrorAsync(
        verifyNonceMappingSignature({ ...body, id: otherRequestId }, signature, expectation),
        'INVALID_SIGNATURE',
        { field: 'id' },
      );
      await expectQuoteErrorAsync(
        verifyNonceMappingSignature({ ...body, signatureChainId: 10 }, signature, expectation),
        'INVALID_SIGNATURE',
      );
    });

    it('accepts the nonce as a decimal string', async () => {
      const { signature, body } = await signAuthorize();
      await expect(
        verifyNonceMappingSignature({ ...body, nonce: String(nonce) }, signature, expectation),
      ).resolves.toBeUndefined();
    });

    it('rejects a body that is not a nonce mapping, or a malformed signature', async () => {
      const { signature, body } = await signAuthorize();
      await expectQuoteErrorAsync(
        verifyNonceMappingSignature({ ...body, type: 'other' as 'nonce-mapping' }, signature, expectation),
        'INVALID_INPUT',
      );
      await expectQuoteErrorAsync(
        verifyNonceMappingSignature(body, '0xdead' as Hex, expectation),
        'INVALID_SIGNATURE',
      );
    });
  });
});
