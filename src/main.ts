import 'reflect-metadata';
import { loadAppConfig } from './config/app-config.js';
import { ConfigError } from './config/config.error.js';
import { createApp } from './bootstrap/create-app.js';
import { assertRpcChainIds } from './chains/assert-rpc-chain-ids.js';

/** The API process: `npm start`. */
async function main(): Promise<void> {
  const config = loadAppConfig(process.env);
  // An RPC URL that serves another chain would have that chain's deposits credited as this one's (docs/chains.md).
  if (config.environment === 'production') await assertRpcChainIds(config.chains.all());
  const app = await createApp(config);
  await app.listen({ port: config.http.port, host: process.env.HOST || '0.0.0.0' });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(
      `Ferry failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
