import { DATABASE, type Database } from '../../src/database/database.js';
import { startTestApp, type TestApp } from './app.js';
import { ChainClients, settlementEnv } from './chain-clients.js';
import { type Devnet, startDevnets } from './devnet.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

/**
 * What the suites that settle with the app in this process (its own solver, on two real local chains) share: two
 * devnets and their clients, a fresh database, the app on it (`settlementEnv`, with `env` added) and the app's database.
 */
export interface SettlementSuite {
  readonly a: Devnet;
  readonly b: Devnet;
  readonly clients: ChainClients;
  readonly database: TestDatabase;
  readonly app: TestApp;
  readonly db: Database;
}

export async function startSettlementSuite(
  databaseName: string,
  env: Record<string, string> = {},
): Promise<SettlementSuite> {
  const [a, b] = await startDevnets();
  let database: TestDatabase | undefined;
  try {
    database = await createTestDatabase(databaseName);
    const app = await startTestApp(settlementEnv(a, b, env), [], undefined, database);
    return { a, b, clients: new ChainClients([a, b]), database, app, db: app.app.get<Database>(DATABASE) };
  } catch (error) {
    await stopSettlementSuite({ a, b, database });
    throw error;
  }
}

/** Stops what `startSettlementSuite` started (or the part of it that started): the app, the database, the devnets. */
export async function stopSettlementSuite(suite: Partial<SettlementSuite> | undefined): Promise<void> {
  await suite?.app?.close();
  await suite?.database?.drop();
  await Promise.all([suite?.a?.stop(), suite?.b?.stop()]);
}
