import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { createApp } from '../src/bootstrap/create-app.js';
import { buildOpenApiDocument } from '../src/bootstrap/openapi.js';
import { renderErrorsDoc } from '../src/common/http/errors-doc.js';
import { loadAppConfig } from '../src/config/app-config.js';

/** `npm run openapi`: regenerates docs/openapi.json and docs/errors.md from the code. */
async function main(): Promise<void> {
  const config = loadAppConfig({
    ...process.env,
    DATABASE_URL: '',
    DATA_DIR: 'memory://openapi',
    LOG_LEVEL: 'error',
    PROJECTIONS_RUN: 'false',
    // The documented API has the oracle's routes mounted, as `npm start` in development does.
    ORACLE_MOUNT: 'true',
  });
  const app = await createApp(config, { logger: false });
  try {
    writeFileSync('docs/openapi.json', `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`);
    writeFileSync('docs/errors.md', renderErrorsDoc());
    process.stdout.write('wrote docs/openapi.json and docs/errors.md\n');
  } finally {
    await app.close();
  }
}

void main();
