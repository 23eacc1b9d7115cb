import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/bootstrap/create-app.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { createTestDatabase } from '../support/postgres.js';

/** The app at `level`, its Fastify log lines collected; `run` drives it, then the app is closed. */
async function withLoggedApp(
  level: string,
  run: (http: FastifyInstance) => Promise<void>,
): Promise<Record<string, unknown>[]> {
  const database = await createTestDatabase('ferry_e2e');
  const lines: Record<string, unknown>[] = [];
  const config = loadAppConfig({
    ENVIRONMENT: 'test',
    LOG_LEVEL: level,
    DATABASE_URL: database.url,
    PROJECTIONS_RUN: 'false',
    HTTP_REQUEST_SUMMARY_INTERVAL_MS: '60000',
  });
  const app = await createApp(config, {
    logger: false,
    logStream: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  try {
    await app.init();
    const http = app.getHttpAdapter().getInstance() as unknown as FastifyInstance;
    await http.ready();
    await run(http);
  } finally {
    // Closing flushes the summary of the requests not summarised yet.
    await app.close();
    await database.drop();
  }
  return lines;
}

const drive = async (http: FastifyInstance) => {
  await http.inject({ method: 'GET', url: '/no/such/route', headers: { 'x-request-id': 'log-1' } });
  await http.inject({ method: 'GET', url: '/no/such/route' });
  await http.inject({
    method: 'POST',
    url: '/quote/v2',
    headers: { 'content-type': 'text/plain' },
    payload: 'x',
  });
};

describe('request log', () => {
  it('writes no line per request at info, only the summary of the answers', async () => {
    const lines = await withLoggedApp('info', drive);
    // Fastify's own lines ('incoming request', 'request completed') carry the request id; none is written.
    expect(lines.filter((line) => 'reqId' in line)).toEqual([]);
    const summaries = lines.filter((line) => line.msg === 'requests answered');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ level: 'info', requests: 3, byStatus: { '4xx': 3 } });
    expect(summaries[0].maxMs).toEqual(expect.any(Number));
  });

  it('writes one line per request with its request id at debug', async () => {
    const lines = await withLoggedApp('debug', drive);
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(3);
    expect(completed[0]).toMatchObject({
      level: 'debug',
      reqId: 'log-1',
      req: { method: 'GET', url: '/no/such/route' },
      res: { statusCode: 404 },
      responseTime: expect.any(Number),
    });
    expect(completed[2]).toMatchObject({ res: { statusCode: 415 } });
  });
});
