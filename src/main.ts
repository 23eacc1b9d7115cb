import 'reflect-metadata';
import { loadAppConfig } from './config/app-config.js';
import { ConfigError } from './config/config.error.js';
import { createApp } from './bootstrap/create-app.js';

/** The API process: `npm start`. */
async function main(): Promise<void> {
  const config = loadAppConfig(process.env);
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
