import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  hashDomain,
  http,
  parseEventLogs,
  type PublicClient,
  size,
  slice,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { checkAttestation } from '../../../src/oracle/client/verify-attestation.js';
import { loadOracleConfig } from '../../../src/oracle/config/oracle-config.js';
import {
  ATTESTATION_KINDS,
  type AttestationKind,
  type AttestationMessages,
  digestOf,
  messageIdOf,
  type OracleDomain,
} from '../../../src/oracle/messages/oracle-messages.js';
import { RawKeySigner } from '../../../src/oracle/signer/oracle-signer.js';
import { readArtifact } from '../../../scripts/devnet/deploy-devnet.js';
import {
  DEVNET_ORACLE_SIGNERS,
  devnetOracleVerifierAddress,
  ORACLE_VERIFIER_OWNER,
} from '../../../scripts/devnet/deploy-oracle-verifier.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { malleated, withRawRecoveryId } from '../../support/oracle.js';

/** A message of every kind, as the oracle builds them (addresses and amounts are arbitrary but well-formed). */
const MESSAGES: AttestationMessages = {
  'depository-deposit': {
    data: { chainId: '31338', transactionId: `0x${'a1'.repeat(32)}` },
    result: {
      depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      depositId: `0x${'01'.repeat(32)}`,
      depositor: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      currency: '0x0000000000000000000000000000000000000000',
      amount: '1000000000000000000',
      logIndex: '0',
    },
  },
  'depository-withdrawal': {
    data: { chainId: '31338', transactionId: `0x${'b2'.repeat(32)}` },
    result: {
      depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      currency: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      recipient: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      amount: '2500000',
      logIndex: '1',
    },
  },
  'solver-fill': {
    data: {
      chainId: '31338',
      transactionId: `0x${'c3'.repeat(32)}`,
      orderId: `0x${'02'.repeat(32)}`,
      recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      currency: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      minimumAmount: '990000',
    },
    result: {
      solver: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      currency: '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512',
      amount: '1000000',
    },
  },
  'solver-refund': {
    data: {
      chainId: '31337',
      transactionId: `0x${'d4'.repeat(32)}`,
      orderId: `0x${'03'.repeat(32)}`,
      recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      currency: '0x0000000000000000000000000000000000000000',
      minimumAmount: '5000',
    },
    result: {
      solver: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      currency: '0x0000000000000000000000000000000000000000',
      amount: '5000',
    },
  },
};

/**
 * FerryOracleVerifier on a real hub devnet (31337) as `startDevnet` deploys it, fed signatures the oracle's own code
 * makes (RawKeySigner over digestOf under the domain loadOracleConfig reads for ENVIRONMENT=test).
 */
describe('FerryOracleVerifier', () => {
  const abi = readArtifact('FerryOracleVerifier').abi as Abi;
  const [first, second] = DEVNET_ORACLE_SIGNERS.map((signer) => new RawKeySigner(signer.privateKey));
  const unknown = new RawKeySigner(`0x${'c5'.repeat(32)}`);
  let hub: Devnet;
  let reader: PublicClient;
  let domain: OracleDomain;
  let verifier: Address;
  let snapshot: string;

  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    reader.readContract({ address: verifier, abi, functionName, args }) as Promise<T>;
  const verify = (messageId: Hex, signatures: readonly Hex[]) =>
    read<bigint>('verify', [messageId, signatures]);
  const isAttested = (messageId: Hex, signatures: readonly Hex[]) =>
    read<boolean>('isAttested', [messageId, signatures]);
  const sign = (signer: RawKeySigner, kind: AttestationKind, signingDomain = domain) =>
    signer.signDigest(digestOf(kind, MESSAGES[kind], signingDomain));

  /** Sends `functionName` from `privateKey` and answers the receipt, or the custom error's name when it reverts. */
  const send = async (privateKey: Hex, functionName: string, args: readonly unknown[]) => {
    const account = privateKeyToAccount(privateKey);
    try {
      const { request } = await reader.simulateContract({
        account,
        address: verifier,
        abi,
        functionName,
        args,
      });
      const wallet = createWalletClient({
        account,
        chain: reader.chain,
        transport: http(hub.rpcUrl, { retryCount: 0 }),
      });
      const receipt = await reader.waitForTransactionReceipt({ hash: await wallet.writeContract(request) });
      expect(receipt.status).toBe('success');
      return {
        events: parseEventLogs({ abi, logs: receipt.logs }).map(({ eventName, args }) => ({
          eventName,
          args,
        })),
      };
    } catch (error) {
      const reverted =
        error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
      if (reverted instanceof ContractFunctionRevertedError)
        return { error: reverted.data?.errorName, args: reverted.data?.args };
      throw error;
    }
  };

  beforeAll(async () => {
    hub = await startDevnet({ chainId: 31337 });
    const chain = defineChain({
      id: hub.chainId,
      name: 'hub devnet',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [hub.rpcUrl] } },
    });
    reader = createPublicClient({
      chain,
      transport: http(hub.rpcUrl, { retryCount: 0 }),
      pollingInterval: 50,
      cacheTime: 0,
    }) as PublicClient;
    domain = loadOracleConfig({
      ENVIRONMENT: 'test',
      ECDSA_PRIVATE_KEY: DEVNET_ORACLE_SIGNERS[0].privateKey,
    }).domain;
    verifier = hub.deployment.oracleVerifier!;
  }, 120_000);
  afterAll(() => hub?.stop());
  beforeEach(async () => {
    snapshot = await hub.snapshot();
  });
  afterEach(() => hub.revert(snapshot));

  it('is deployed on the hub at the oracle address of the test config, with the devnet signer set', async () => {
    expect(verifier).toBe(devnetOracleVerifierAddress());
    expect(domain).toMatchObject({
      name: 'FerryOracle',
      version: '1',
      chainId: hub.chainId,
      verifyingContract: verifier,
    });
    expect(size((await reader.getCode({ address: verifier }))!)).toBeGreaterThan(0);
    expect(await read('owner')).toBe(ORACLE_VERIFIER_OWNER.address);
    expect(await read('signerCount')).toBe(2n);
    expect(await read('threshold')).toBe(1n);
    for (const signer of [first, second]) expect(await read('isSigner', [signer.address])).toBe(true);
    expect(await read('isSigner', [unknown.address])).toBe(false);
  });

  it("computes the domain separator viem's hashDomain gives the configured domain", async () => {
    const expected = hashDomain({
      domain: { ...domain, chainId: BigInt(domain.chainId) },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
      },
    });
    expect(await read('domainSeparator')).toBe(expected);
  });

  it.each(ATTESTATION_KINDS)('counts each configured signer of a %s attestation once', async (kind) => {
    const messageId = messageIdOf(kind, MESSAGES[kind]);
    expect(await read('digestOf', [messageId])).toBe(digestOf(kind, MESSAGES[kind], domain));
    const [one, two] = [await sign(first, kind), await sign(second, kind)];
    expect(await verify(messageId, [])).toBe(0n);
    expect(await verify(messageId, [one])).toBe(1n);
    expect(await verify(messageId, [two, one])).toBe(2n);
    expect(await isAttested(messageId, [two])).toBe(true);
    expect(await isAttested(messageId, [])).toBe(false);
  });

  it("rejects a signature of another message, and a fill's signature for the refund of the same payment", async () => {
    const deposit = await sign(first, 'depository-deposit');
    expect(
      await verify(messageIdOf('depository-withdrawal', MESSAGES['depository-withdrawal']), [deposit]),
    ).toBe(0n);
    const fill = await sign(first, 'solver-fill');
    expect(await verify(messageIdOf('solver-refund', MESSAGES['solver-fill']), [fill])).toBe(0n);
  });

  it('rejects a signature under another domain: another chain id or another verifying contract', async () => {
    const messageId = messageIdOf('depository-deposit', MESSAGES['depository-deposit']);
    const otherChain = await sign(first, 'depository-deposit', { ...domain, chainId: 31338 });
    const otherContract = await sign(first, 'depository-deposit', {
      ...domain,
      verifyingContract: '0x0000000000000000000000000000000000000001',
    });
    expect(await verify(messageId, [otherChain, otherContract])).toBe(0n);
  });

  it('ignores an unknown signer and counts the configured one beside it', async () => {
    const messageId = messageIdOf('solver-fill', MESSAGES['solver-fill']);
    const stranger = await sign(unknown, 'solver-fill');
    expect(await verify(messageId, [stranger])).toBe(0n);
    expect(await verify(messageId, [stranger, await sign(first, 'solver-fill')])).toBe(1n);
  });

  it('counts a repeated signature once, so one signer cannot reach a threshold of 2', async () => {
    expect((await send(ORACLE_VERIFIER_OWNER.privateKey, 'setThreshold', [2n])).events).toEqual([
      { eventName: 'ThresholdSet', args: { threshold: 2n } },
    ]);
    const messageId = messageIdOf('solver-refund', MESSAGES['solver-refund']);
    const one = await sign(first, 'solver-refund');
    expect(await verify(messageId, [one, one, one])).toBe(1n);
    expect(await isAttested(messageId, [one, one])).toBe(false);
    expect(await isAttested(messageId, [one, await sign(second, 'solver-refund')])).toBe(true);
  });

  it('rejects a high-s malleated copy, a v of 0 or 1 and a truncated signature', async () => {
    const messageId = messageIdOf('depository-withdrawal', MESSAGES['depository-withdrawal']);
    const one = await sign(first, 'depository-withdrawal');
    expect(await verify(messageId, [malleated(one)])).toBe(0n);
    expect(await verify(messageId, [withRawRecoveryId(one)])).toBe(0n);
    expect(await verify(messageId, [slice(one, 0, 64)])).toBe(0n);
    expect(await verify(messageId, [malleated(one), one])).toBe(1n);
  });

  it("Ferry's checkAttestation counts exactly the signers the contract counts, malformed and malleated ones included", async () => {
    const kind = 'solver-fill';
    const messageId = messageIdOf(kind, MESSAGES[kind]);
    const [one, two, stranger] = [
      await sign(first, kind),
      await sign(second, kind),
      await sign(unknown, kind),
    ];
    const batches: Record<string, readonly (readonly [RawKeySigner, Hex])[]> = {
      'two signers': [
        [first, one],
        [second, two],
      ],
      'a repeat': [
        [first, one],
        [first, one],
      ],
      'a high-s copy': [[first, malleated(one)]],
      'a v of 0 or 1': [[first, withRawRecoveryId(one)]],
      'a high-s copy before the genuine one': [
        [first, malleated(one)],
        [first, one],
      ],
      'a high-s copy and a v of 0 or 1 of two signers': [
        [first, malleated(one)],
        [second, withRawRecoveryId(two)],
      ],
      'an unknown signer': [[unknown, stranger]],
    };
    const counts = async (label: string, batch: readonly (readonly [RawKeySigner, Hex])[]) => {
      const signatures = batch.map(([signer, signature]) => ({ signer: signer.address, signature }));
      const check = await checkAttestation(
        { kind, messageId, domain, message: MESSAGES[kind], signatures },
        domain,
        [first.address, second.address],
      );
      const onchain = await verify(
        messageId,
        batch.map(([, signature]) => signature),
      );
      return { label, ferry: check.counted.length, contract: Number(onchain) };
    };
    const results = await Promise.all(Object.entries(batches).map(([label, batch]) => counts(label, batch)));
    expect(results.map(({ label, ferry }) => ({ label, counted: ferry }))).toEqual(
      results.map(({ label, contract }) => ({ label, counted: contract })),
    );
  });

  it('lets only the owner change the signer set and the threshold, with events', async () => {
    const stranger = DEVNET_ORACLE_SIGNERS[0].privateKey;
    expect(await send(stranger, 'setSigner', [unknown.address, true])).toEqual({
      error: 'NotOwner',
      args: [first.address],
    });
    expect(await send(stranger, 'setThreshold', [2n])).toMatchObject({ error: 'NotOwner' });

    const owner = ORACLE_VERIFIER_OWNER.privateKey;
    expect((await send(owner, 'setSigner', [unknown.address, true])).events).toEqual([
      { eventName: 'SignerSet', args: { signer: unknown.address, enabled: true } },
    ]);
    const messageId = messageIdOf('depository-deposit', MESSAGES['depository-deposit']);
    expect(await verify(messageId, [await sign(unknown, 'depository-deposit')])).toBe(1n);

    expect((await send(owner, 'setSigner', [first.address, false])).events).toEqual([
      { eventName: 'SignerSet', args: { signer: first.address, enabled: false } },
    ]);
    expect(await verify(messageId, [await sign(first, 'depository-deposit')])).toBe(0n);
    expect(await read('signerCount')).toBe(2n);
  });

  it('refuses a threshold of 0, one above the signer count, and removing a signer below the threshold', async () => {
    const owner = ORACLE_VERIFIER_OWNER.privateKey;
    expect(await send(owner, 'setThreshold', [0n])).toEqual({ error: 'InvalidThreshold', args: [0n, 2n] });
    expect(await send(owner, 'setThreshold', [3n])).toEqual({ error: 'InvalidThreshold', args: [3n, 2n] });
    await send(owner, 'setThreshold', [2n]);
    expect(await send(owner, 'setSigner', [second.address, false])).toEqual({
      error: 'InvalidThreshold',
      args: [2n, 1n],
    });
    expect(await read('threshold')).toBe(2n);
  });
});
