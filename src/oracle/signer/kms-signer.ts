import { type Address, type Hex, hexToBytes, isHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { ConfigError } from '../../config/config.error.js';
import type { Env } from '../../config/resolve-placeholders.js';
import type { SigningConfig } from '../config/oracle-config.js';
import { AwsKmsClient, awsCredentialsFromEnv } from './aws-kms-client.js';
import { DerError, parseDerSignature, parseSecp256k1PublicKey } from './der.js';
import { toEthereumSignature } from './ethereum-signature.js';
import type { OracleSigner } from './oracle-signer.js';

/** The only key spec whose signatures Ethereum verifies. */
const SECP256K1_KEY_SPEC = 'ECC_SECG_P256K1';

/**
 * `SIGNING_MODULE=cloud-kms`: the private key never leaves AWS KMS. Its address is derived once from the key's
 * public key; each digest is signed by KMS (`ECDSA_SHA_256` over the digest as given) and the DER answer is turned
 * into Ethereum's `r ‖ s ‖ v` (ethereum-signature.ts).
 */
export class KmsSigner implements OracleSigner {
  private constructor(
    readonly address: Address,
    private readonly client: AwsKmsClient,
    private readonly keyId: string,
  ) {}

  /** Reads the key's public key and checks it is a secp256k1 signing key; throws otherwise. */
  static async connect(client: AwsKmsClient, keyId: string): Promise<KmsSigner> {
    const key = await client.getPublicKey(keyId);
    if (key.keySpec !== SECP256K1_KEY_SPEC) {
      throw new ConfigError(
        'CLOUD_KMS_SIGNER_KEY_ID',
        `must name a ${SECP256K1_KEY_SPEC} key (Ethereum's secp256k1); the key's KeySpec is ${key.keySpec}`,
      );
    }
    if (key.keyUsage !== null && key.keyUsage !== 'SIGN_VERIFY') {
      throw new ConfigError(
        'CLOUD_KMS_SIGNER_KEY_ID',
        `must name a SIGN_VERIFY key; the key's KeyUsage is ${key.keyUsage}`,
      );
    }
    let point: Hex;
    try {
      point = parseSecp256k1PublicKey(key.publicKey);
    } catch (error) {
      if (!(error instanceof DerError)) throw error;
      throw new ConfigError(
        'CLOUD_KMS_SIGNER_KEY_ID',
        `has a public key that cannot be read: ${error.message}`,
      );
    }
    return new KmsSigner(publicKeyToAddress(point), client, keyId);
  }

  async signDigest(digest: Hex): Promise<Hex> {
    if (!isHex(digest) || hexToBytes(digest).length !== 32) {
      throw new Error(`A digest to sign is 32 bytes of hex (got ${digest})`);
    }
    const der = await this.client.sign(this.keyId, hexToBytes(digest));
    return toEthereumSignature(parseDerSignature(der), digest, this.address);
  }
}

/**
 * The signer of `SIGNING_MODULE=cloud-kms`: credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
 * `AWS_SESSION_TOKEN` in `env`, the key `CLOUD_KMS_SIGNER_KEY_ID` in `CLOUD_KMS_SIGNER_KEY_REGION`. Rejects with a
 * ConfigError for a missing variable or an unusable key, and with a KmsRequestError when KMS cannot be reached or
 * refuses the request.
 */
export async function connectKmsSigner(
  signing: Extract<SigningConfig, { module: 'cloud-kms' }>,
  env: Env,
): Promise<OracleSigner> {
  const credentials = awsCredentialsFromEnv(env);
  let endpoint: URL;
  try {
    endpoint = new URL(signing.endpoint);
  } catch {
    throw new ConfigError('CLOUD_KMS_ENDPOINT', `must be an http(s) URL (got "${signing.endpoint}")`);
  }
  if (endpoint.protocol !== 'https:' && endpoint.protocol !== 'http:') {
    throw new ConfigError('CLOUD_KMS_ENDPOINT', `must be an http(s) URL (got "${signing.endpoint}")`);
  }
  const client = new AwsKmsClient({ endpoint: endpoint.href, region: signing.region, credentials });
  return KmsSigner.connect(client, signing.keyId);
}
