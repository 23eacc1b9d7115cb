import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnNode } from '../support/process.js';
import { PRODUCTION_CHAINS_ENV, PRODUCTION_HUB_ENV } from '../support/production-env.js';

const MAIN = 'dist/src/main.js';

describe('the API process (dist/src/main.js, as `npm start` runs it)', () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (scripts/test.mjs)`);
  });

  it.each([
    [
      { PORT: 'abc' },
      /^Invalid configuration: PORT must be an integer \(got "abc"\) \(.*app\.development\.json: http\.port\)\n$/,
    ],
    [
      { DATABASE_URL: 'mysql://nope' },
      /^Invalid configuration: DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL\n$/,
    ],
    [
      { ENVIRONMENT: 'nowhere' },
      /^Invalid configuration: ENVIRONMENT is "nowhere" but .*app\.nowhere\.json does not exist\n$/,
    ],
    [
      {
        ...PRODUCTION_CHAINS_ENV,
        ...PRODUCTION_HUB_ENV,
        ENVIRONMENT: 'production',
        API_KEY_ENCRYPTION_KEY: '11'.repeat(32),
        ORACLE_MOUNT: 'true',
        ECDSA_PRIVATE_KEY: `0x${'4b'.repeat(32)}`,
      },
      /^Invalid configuration: API_KEYS is required in production .*ORACLE_ALLOW_OPEN=true.*\n$/,
    ],
  ])('stops with one line naming the variable for %j', async (env, line) => {
    const sut = spawnNode(MAIN, [], { ...env, DATA_DIR: mkdtempSync(join(tmpdir(), 'ferry-start-')) });
    expect(await sut.exited).toBe(1);
    expect(sut.stderr()).toMatch(line);
  });

  it('serves /health on embedded storage with no database server, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'ferry-start-'));
    const sut = spawnNode(MAIN, [], {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    });
    try {
      // /health answers from the background probe's last reading: the one taken at boot may predate the
      // projections going live, so the process is healthy once a reading says so (within one probe interval).
      let response: Response | undefined;
      for (let attempt = 0; attempt < 300 && response?.status !== 200; attempt += 1) {
        response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
        if (response?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(response?.status).toBe(200);
      expect(await response?.json()).toMatchObject({
        status: 'ok',
        checks: { database: { kind: 'pglite' } },
      });
    } finally {
      sut.child.kill('SIGTERM');
    }
    expect([0, 'SIGTERM']).toContain(await sut.exited);
    // The shutdown hooks ran: the database was closed and its lock released.
    expect(existsSync(join(dataDir, 'FERRY_PGLITE.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'FERRY_PGLITE.json'))).toBe(true);
    // A first start on a fresh database logs no error (a worker once read a projection's table before it existed).
    expect(`${sut.stdout()}${sut.stderr()}`).not.toMatch(/"level":"(error|fatal)"/);
  });
});
