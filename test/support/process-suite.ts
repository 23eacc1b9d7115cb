import pg from 'pg';
import { ChainClients, waitFor } from './chain-clients.js';
import { type Devnet, startDevnets } from './devnet.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';
import { freePort, type Spawned, spawnNode } from './process.js';

/**
 * What the suites that run Ferry as processes (crashes, restarts, SIGTERM) share: two devnets and their clients, a
 * fresh database, and a SQL client on it to read what the processes wrote.
 */
export interface ProcessSuite {
  readonly a: Devnet;
  readonly b: Devnet;
  readonly clients: ChainClients;
  readonly database: TestDatabase;
  readonly sql: pg.Client;
}

export async function startProcessSuite(databaseName: string): Promise<ProcessSuite> {
  const [a, b] = await startDevnets();
  const database = await createTestDatabase(databaseName).catch(async (error: unknown) => {
    await Promise.all([a.stop(), b.stop()]);
    throw error;
  });
  const sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
  return { a, b, clients: new ChainClients([a, b]), database, sql };
}

/** Stops what `startProcessSuite` started (or the part of it that started). */
export async function stopProcessSuite(suite: Partial<ProcessSuite> | undefined): Promise<void> {
  await suite?.sql?.end();
  await suite?.database?.drop();
  await Promise.all([suite?.a?.stop(), suite?.b?.stop()]);
}

/** A Ferry API process (`dist/src/main.js`) and its base URL. */
export interface FerryProcess {
  readonly process: Spawned;
  readonly url: string;
}

/**
 * Starts the built Ferry (`dist/src/main.js`, `npm run build` first) on a free loopback port and on `database`, with
 * `env` (the chains' `settlementEnv`, `FERRY_FAILPOINTS`, …) on top of the test environment; resolves once its
 * `/health` answers OK (within 60 s; the error names the port and the end of its stderr).
 */
export async function startFerry(database: TestDatabase, env: Record<string, string>): Promise<FerryProcess> {
  const port = await freePort();
  const process = spawnNode('dist/src/main.js', [], {
    ENVIRONMENT: 'test',
    LOG_LEVEL: 'fatal',
    PORT: String(port),
    DATABASE_URL: database.url,
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => (await fetch(`${url}/health`).catch(() => null))?.ok,
    `Ferry on ${port} (${process.stderr().slice(-500)})`,
    60_000,
  );
  return { process, url };
}

/** A request's status, as the Ferry at `url` answers it (`GET /intents/status/v3`). */
export async function statusAt(url: string, requestId: string): Promise<string> {
  return (
    (await (await fetch(`${url}/intents/status/v3?requestId=${requestId}`)).json()) as { status: string }
  ).status;
}
