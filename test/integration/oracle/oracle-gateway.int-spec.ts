import type { Address } from 'viem';
import type { Attestation } from '../../../src/oracle/attestation.js';
import { HttpSource } from '../../../src/oracle/client/attestation-sources.js';
import { OracleGateway } from '../../../src/oracle/client/oracle-gateway.js';
import { type Devnet, startDevnet } from '../../support/devnet.js';
import { NATIVE, OracleFacts, orderIdOf } from '../../support/oracle-facts.js';
import {
  HttpRelay,
  ORACLE_SIGNER_KEYS,
  postJson,
  type RunningOracle,
  startOracle,
} from '../../support/oracle.js';

const TIMEOUT_MS = 5000;

/** An oracle that answers the real instance's attestation with `lie` applied to it. */
const lying = (lie: (attestation: Record<string, unknown>) => unknown) => (body: string) =>
  JSON.stringify(lie(JSON.parse(body) as Record<string, unknown>));

/**
 * Ferry's side of the oracle (OracleGateway over HttpSource) against real instances on loopback and a real devnet:
 * an oracle of the configured set that answers nonsense counts for nothing, and never keeps the honest oracles'
 * attestation from being gathered.
 */
describe(OracleGateway.name, () => {
  const stops: (() => Promise<void>)[] = [];
  let chain: Devnet;
  let facts: OracleFacts;
  let honest: RunningOracle;
  let other: RunningOracle;

  beforeAll(async () => {
    chain = await startDevnet({ chainId: 31337 });
    stops.push(() => chain.stop());
    facts = new OracleFacts(chain);
    const env = { DEVNET_A_RPC_URL: chain.rpcUrl, DEVNET_B_RPC_URL: chain.rpcUrl };
    honest = await startOracle({ env, privateKey: ORACLE_SIGNER_KEYS.seven });
    other = await startOracle({ env, privateKey: ORACLE_SIGNER_KEYS.eight });
    stops.unshift(
      () => honest.stop(),
      () => other.stop(),
    );
  }, 120_000);
  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  /** A gateway over the honest instance and `other` behind a relay that applies `lie`, trusting both signers. */
  const gatewayWithLiar = async (lie: (attestation: Record<string, unknown>) => unknown) => {
    const relay = new HttpRelay(other.url, { rewrite: lying(lie) });
    const url = await relay.start();
    stops.unshift(() => relay.stop());
    const signers: Address[] = [honest.signer.address, other.signer.address];
    return new OracleGateway(
      [new HttpSource(honest.url, null, TIMEOUT_MS), new HttpSource(url, null, TIMEOUT_MS)],
      honest.config.domain,
      signers,
      1,
    );
  };

  it.each([
    ['signatures that are no list', (answer: Record<string, unknown>) => ({ ...answer, signatures: 'none' })],
    ['a signature that is null', (answer: Record<string, unknown>) => ({ ...answer, signatures: [null] })],
    [
      'a signer that is no address',
      (answer: Record<string, unknown>) => ({
        ...answer,
        signatures: (answer.signatures as Attestation['signatures']).map((s) => ({ ...s, signer: 'me' })),
      }),
    ],
  ])(
    'an oracle answering %s counts for nothing, and the honest attestation is gathered',
    async (name, lie) => {
      const receipt = await facts.depositNative(orderIdOf(`gateway-${name}`), 1_000n);
      const sut = await gatewayWithLiar(lie);

      const gathered = await sut.attest('depository-deposit', {
        chainId: 31337,
        transactionId: receipt.transactionHash,
      });

      expect(gathered.counted).toEqual([honest.signer.address]);
      expect(gathered.attestation.signatures.map((signature) => signature.signer)).toEqual([
        honest.signer.address,
      ]);
    },
  );

  it("an oracle answering a fill with the same payment's refund (genuinely signed) does not make it the fill's attestation", async () => {
    const orderId = orderIdOf('gateway-refund-for-fill');
    const recipient = `0x${'c3'.repeat(20)}` as Address;
    const receipt = await facts.pay(NATIVE, recipient, 5_000n, orderId);
    const request = {
      chainId: 31337,
      transactionId: receipt.transactionHash,
      orderId,
      recipient,
      currency: NATIVE,
      minimumAmount: '5000',
    };
    const refundBy = async (oracle: RunningOracle) =>
      (await postJson(oracle.url, '/attestations/solver-refunds/v1', request)).body as unknown as Attestation;
    const [refund7, refund8] = [await refundBy(honest), await refundBy(other)];
    // Both trusted signers signed the refund: more than the one honest fill answer beside it.
    const sut = await gatewayWithLiar(() => ({
      ...refund8,
      signatures: [...refund7.signatures, ...refund8.signatures],
    }));

    const gathered = await sut.attest('solver-fill', request);

    expect(gathered.attestation.kind).toBe('solver-fill');
    expect(gathered.attestation.messageId).not.toBe(refund8.messageId);
    expect(gathered.counted).toEqual([honest.signer.address]);
  });

  it("an oracle answering another deposit's attestation, signed by more trusted signers, does not displace the one asked", async () => {
    const asked = await facts.depositNative(orderIdOf('gateway-deposit-asked'), 1_000n);
    const another = await facts.depositNative(orderIdOf('gateway-deposit-another'), 2_000n);
    const depositBy = async (oracle: RunningOracle) =>
      (
        await postJson(oracle.url, '/attestations/depository-deposits/v1', {
          chainId: 31337,
          transactionId: another.transactionHash,
        })
      ).body as unknown as Attestation;
    const [another7, another8] = [await depositBy(honest), await depositBy(other)];
    const sut = await gatewayWithLiar(() => ({
      ...another8,
      signatures: [...another7.signatures, ...another8.signatures],
    }));

    const gathered = await sut.attest('depository-deposit', {
      chainId: 31337,
      transactionId: asked.transactionHash,
    });

    expect(gathered.attestation.message.data.transactionId).toBe(asked.transactionHash);
    expect(gathered.counted).toEqual([honest.signer.address]);
  });
});
