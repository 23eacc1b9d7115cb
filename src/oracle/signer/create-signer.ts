import type { Env } from '../../config/resolve-placeholders.js';
import type { SigningConfig } from '../config/oracle-config.js';
import { connectKmsSigner } from './kms-signer.js';
import { type OracleSigner, RawKeySigner } from './oracle-signer.js';

/** The signer `SIGNING_MODULE` names; a KMS signer first reads its public key to know its address. */
export async function createSigner(signing: SigningConfig, env: Env): Promise<OracleSigner> {
  if (signing.module === 'raw-private-key') return new RawKeySigner(signing.privateKey);
  return connectKmsSigner(signing, env);
}
