import { createHash, createPublicKey, verify as opensslVerify } from 'node:crypto';
import { type Hex, hexToBigInt, keccak256, parseSignature, recoverAddress, toHex } from 'viem';
import { ConfigError } from '../../../src/config/config.error.js';
import type { SigningConfig } from '../../../src/oracle/config/oracle-config.js';
import {
  digestOf,
  type DepositoryDepositMessage,
  type OracleDomain,
  type SolverPaymentMessage,
} from '../../../src/oracle/messages/oracle-messages.js';
import { AwsKmsClient, KmsRequestError } from '../../../src/oracle/signer/aws-kms-client.js';
import { SECP256K1_N } from '../../../src/oracle/signer/ethereum-signature.js';
import { connectKmsSigner } from '../../../src/oracle/signer/kms-signer.js';
import { KmsTestServer, TEST_AWS_CREDENTIALS } from '../../support/kms-server.js';
import { freePort } from '../../support/process.js';

const DOMAIN: OracleDomain = {
  name: 'FerryOracle',
  version: '1',
  chainId: 31337,
  verifyingContract: '0x0000000000000000000000000000000000000001',
};

const DEPOSIT: DepositoryDepositMessage = {
  data: { chainId: '31337', transactionId: keccak256(toHex('deposit transaction')) },
  result: {
    depository: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
    depositId: keccak256(toHex('request 1')),
    depositor: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    currency: '0x0000000000000000000000000000000000000000',
    amount: '1000000000000000000',
    logIndex: '0',
  },
};

const FILL: SolverPaymentMessage = {
  data: {
    chainId: '31338',
    transactionId: keccak256(toHex('fill transaction')),
    orderId: keccak256(toHex('request 1')),
    recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    currency: '0x0000000000000000000000000000000000000000',
    minimumAmount: '990000000000000000',
  },
  result: {
    solver: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
    currency: '0x0000000000000000000000000000000000000000',
    amount: '995000000000000000',
  },
};

function signingOf(server: KmsTestServer): Extract<SigningConfig, { module: 'cloud-kms' }> {
  return { module: 'cloud-kms', keyId: server.keyId, region: server.region, endpoint: server.url };
}

describe('connectKmsSigner (SIGNING_MODULE=cloud-kms) against a KMS on loopback', () => {
  let server: KmsTestServer;

  beforeEach(async () => {
    server = await new KmsTestServer().start();
  });

  afterEach(async () => {
    await server.stop();
  });

  it("has the address of the KMS key's public key", async () => {
    const sut = await connectKmsSigner(signingOf(server), server.env());

    expect(sut.address).toBe(server.address);
    expect(server.requests).toEqual([{ action: 'GetPublicKey', status: 200 }]);
  });

  it('signs EIP-712 digests of attestations so they recover to that address, with a low s', async () => {
    const sut = await connectKmsSigner(signingOf(server), server.env());
    const digests = [
      digestOf('depository-deposit', DEPOSIT, DOMAIN),
      digestOf('solver-fill', FILL, DOMAIN),
      digestOf('solver-refund', FILL, DOMAIN),
      digestOf('depository-deposit', { ...DEPOSIT, result: { ...DEPOSIT.result, logIndex: '1' } }, DOMAIN),
    ];

    for (const digest of digests) {
      const signature = await sut.signDigest(digest);

      expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
      expect(await recoverAddress({ hash: digest, signature })).toBe(server.address);
      const { s, v } = parseSignature(signature);
      expect(hexToBigInt(s) <= SECP256K1_N / 2n).toBe(true);
      expect([27n, 28n]).toContain(v);
    }
    // The server answered every other Sign with the high s: normalisation was needed and done.
    expect(server.highSAnswers).toBe(2);
    expect(server.requests.filter((request) => request.action === 'Sign')).toHaveLength(4);
    expect(server.requests.every((request) => request.status === 200)).toBe(true);
  });

  it('gets standard DER from the test KMS: OpenSSL verifies its signature with its public key', async () => {
    const client = new AwsKmsClient({
      endpoint: server.url,
      region: server.region,
      credentials: TEST_AWS_CREDENTIALS,
    });
    const message = Buffer.from('what the fixture signs');
    const digest = createHash('sha256').update(message).digest();

    const der = await client.sign(server.keyId, digest);
    const { publicKey } = await client.getPublicKey(server.keyId);

    const key = createPublicKey({ key: Buffer.from(publicKey), format: 'der', type: 'spki' });
    expect(opensslVerify('sha256', message, key, der)).toBe(true);
  });

  it('reports a wrong secret key as the signature KMS refuses, naming the variables and not the secret', async () => {
    const secret = 'a-wrong-secret-access-key/000';
    const env = { ...server.env(), AWS_SECRET_ACCESS_KEY: secret };

    const error = await connectKmsSigner(signingOf(server), env).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(KmsRequestError);
    expect((error as KmsRequestError).errorType).toBe('InvalidSignatureException');
    expect((error as Error).message).toMatch(
      /^AWS KMS GetPublicKey failed: InvalidSignatureException \(HTTP 400\): The request signature we calculated does not match.*check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN/,
    );
    expect((error as Error).message).not.toContain(secret);
    expect(server.requests).toEqual([{ action: 'GetPublicKey', status: 400 }]);
  });

  it('reports an unknown access key id', async () => {
    const env = { ...server.env(), AWS_ACCESS_KEY_ID: 'AKIAUNKNOWN000000000' };

    await expect(connectKmsSigner(signingOf(server), env)).rejects.toThrow(
      /UnrecognizedClientException \(HTTP 400\)/,
    );
  });

  it('signs for the configured region only: a request scoped to another region is refused', async () => {
    await expect(
      connectKmsSigner({ ...signingOf(server), region: 'eu-west-1' }, server.env()),
    ).rejects.toThrow(/InvalidSignatureException/);
  });

  it('reports an unknown key id with the error KMS gave', async () => {
    const signing = { ...signingOf(server), keyId: 'alias/not-there' };

    await expect(connectKmsSigner(signing, server.env())).rejects.toThrow(
      "AWS KMS GetPublicKey failed: NotFoundException (HTTP 400): Key 'alias/not-there' does not exist",
    );
  });

  it('refuses a key whose KeySpec is not ECC_SECG_P256K1', async () => {
    server.keySpec = 'ECC_NIST_P256';

    const error = await connectKmsSigner(signingOf(server), server.env()).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('CLOUD_KMS_SIGNER_KEY_ID');
    expect((error as Error).message).toContain('KeySpec is ECC_NIST_P256');
  });

  it.each(['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])(
    'stops at start naming %s when it is missing, before any request',
    async (variable) => {
      const env: Record<string, string> = { ...server.env() };
      delete env[variable];

      const error = await connectKmsSigner(signingOf(server), env).catch((reason: unknown) => reason);

      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variable).toBe(variable);
      expect(server.requests).toEqual([]);
    },
  );

  it('gives up on a KMS that does not answer, after the timeout', async () => {
    server.hang = true;
    const client = new AwsKmsClient({
      endpoint: server.url,
      region: server.region,
      credentials: TEST_AWS_CREDENTIALS,
      timeoutMs: 200,
    });

    await expect(client.getPublicKey(server.keyId)).rejects.toThrow(
      `AWS KMS GetPublicKey failed: ${server.url} did not answer within 200 ms`,
    );
  });

  it('reports an endpoint nothing listens on', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;

    await expect(connectKmsSigner({ ...signingOf(server), endpoint }, server.env())).rejects.toThrow(
      `AWS KMS GetPublicKey failed: could not reach ${endpoint} (ECONNREFUSED)`,
    );
  });

  it('refuses a digest that is not 32 bytes before asking KMS', async () => {
    const sut = await connectKmsSigner(signingOf(server), server.env());

    await expect(sut.signDigest('0x1234' as Hex)).rejects.toThrow('A digest to sign is 32 bytes of hex');
    expect(server.requests.map((request) => request.action)).toEqual(['GetPublicKey']);
  });
});
