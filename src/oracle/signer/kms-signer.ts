import { ConfigError } from '../../config/config.error.js';
import type { Env } from '../../config/resolve-placeholders.js';
import type { SigningConfig } from '../config/oracle-config.js';
import type { OracleSigner } from './oracle-signer.js';

/** Placeholder while the KMS adapter is written (not to be committed as is). */
export function connectKmsSigner(
  _signing: Extract<SigningConfig, { module: 'cloud-kms' }>,
  _env: Env,
): Promise<OracleSigner> {
  return Promise.reject(new ConfigError('SIGNING_MODULE', 'cloud-kms is not available yet'));
}
