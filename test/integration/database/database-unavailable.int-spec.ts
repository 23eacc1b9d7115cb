import { once } from 'node:events';
import net from 'node:net';
import { generateApiKey } from '../../../src/api-keys/api-key-crypto.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { createTestDatabase, TEST_SERVER_URL, type TestDatabase } from '../../support/postgres.js';

/** A TCP hop in front of the local PostgreSQL server that can be taken down (every connection cut) and brought back. */
class PostgresHop {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  get running(): boolean {
    return this.server !== null;
  }

  async start(): Promise<void> {
    const target = new URL(TEST_SERVER_URL);
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  /** Refuses new connections and cuts the open ones, as a database host that went away. */
  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    this.server = null;
  }
}

describe('the database going away', () => {
  let database: TestDatabase;
  let hop: PostgresHop;
  let app: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase('ferry_unavailable');
    hop = new PostgresHop();
    await hop.start();
    const url = new URL(database.url);
    url.port = String(hop.port);
    app = await startTestApp({ DATABASE_URL: url.toString() }, [], undefined, database);
    await waitForProjections(app);
  }, 60_000);
  afterAll(async () => {
    // The app closes its pools against a reachable server (a failed test may leave the hop down).
    if (hop && !hop.running) await hop.start();
    await app?.close();
    await hop?.stop();
    await database?.drop();
  });

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while it is down, never a 500, and answers again when it is back', async () => {
    const status = `/intents/status/v3?requestId=0x${'ab'.repeat(32)}`;
    // An unknown request: the status model was read and holds nothing for it.
    const before = await app.http.inject({ method: 'GET', url: status });
    expect(before.statusCode).toBe(404);

    await hop.stop();
    // A public read, a read model behind an API key (the key itself is read from the database), a balance.
    const reads = [
      { url: status },
      { url: '/requests/v3?limit=1', headers: { 'x-api-key': generateApiKey() } },
      { url: '/app-fees/0x000000000000000000000000000000000000dEaD/balances' },
    ];
    for (const { url, headers } of reads) {
      const down = await app.http.inject({ method: 'GET', url, headers });
      expect({ url, status: down.statusCode }).toEqual({ url, status: 503 });
      expect(down.headers['retry-after']).toBe('1');
      expect(down.json()).toMatchObject({
        errorCode: 'SERVICE_UNAVAILABLE',
        message: 'The database is unavailable; retry shortly',
        statusCode: 503,
      });
      expect(down.json().requestId).toEqual(expect.any(String));
    }

    await hop.start();
    let after = await app.http.inject({ method: 'GET', url: status });
    for (let i = 0; i < 50 && after.statusCode !== 404; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await app.http.inject({ method: 'GET', url: status });
    }
    expect(after.statusCode).toBe(404);
  }, 60_000);
});
