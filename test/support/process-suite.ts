import pg from 'pg';
import { ChainClients } from './chain-clients.js';
import { type Devnet, startDevnets } from './devnet.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

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
