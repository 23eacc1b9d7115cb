import 'reflect-metadata';
import { assertRpcChainIds } from '../chains/assert-rpc-chain-ids.js';
import { ConfigError } from '../config/config.error.js';
import { AttestationService } from './attestation.service.js';
import { loadOracleConfig } from './config/oracle-config.js';
import { loadVaultSecrets } from './config/vault-secrets.js';
import { createOracleApp } from './create-oracle-app.js';
import { createSigner } from './signer/create-signer.js';

/** The oracle on its own: `npm run start:oracle` (port HTTP_PORT, then PORT, then 3000). */
async function main(): Promise<void> {
  // Secrets fill in variables the environment leaves unset or empty (compose passes unset ones as '').
  const env = {
    ...process.env,
    ...loadVaultSecrets(process.env.VAULT_SECRETS_DIR || '/vault/secrets', process.env),
  };
  const config = loadOracleConfig(env);
  // An RPC URL that serves another chain would have that chain's facts attested as this one's (docs/oracle.md).
  if (config.environment === 'production') await assertRpcChainIds(config.chains.all());
  const signer = await createSigner(config.signing, env);
  const app = await createOracleApp(config, signer);
  app.get(AttestationService).announce();
  await app.listen({ port: config.port, host: env.HOST || '0.0.0.0' });
}

main().catch((error: unknown) => {
  process.stderr.write(
    error instanceof ConfigError
      ? `${error.message}\n`
      : `The oracle failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
