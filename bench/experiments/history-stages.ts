import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { createValidationPipe } from '../../src/common/http/validation.pipe.js';
import { loadAppConfig } from '../../src/config/app-config.js';
import { PostgresDatabase } from '../../src/database/postgres-database.js';
import { RequestsV3QueryDto } from '../../src/history/requests-v3.query.dto.js';
import { parseRequestsV3Query } from '../../src/history/requests-v3.query.js';
import { RequestsV3Repository } from '../../src/history/requests-v3.repository.js';
import { listSql } from '../../src/history/requests-v3.sql.js';
import { BENCH_SERVER_URL, processCpuMs, write } from '../support.js';

/**
 * EXPERIMENT, by hand only: CPU per call of each stage of `GET /requests/v3` on a `history-db.ts` database, in this
 * process and in its PostgreSQL backend (one connection), without HTTP.
 *   node dist/bench/experiments/history-stages.js <database> <iterations> '<query string>'
 */

const [database, iterationsText, queryString] = process.argv.slice(2);
const iterations = Number(iterationsText);
const url = new URL(BENCH_SERVER_URL);
url.pathname = `/${database}`;
const config = loadAppConfig({
  ENVIRONMENT: 'test',
  LOG_LEVEL: 'fatal',
  DATABASE_URL: url.toString(),
  API_KEY_ENCRYPTION_KEY: 'a5'.repeat(32),
});
const { key } = JSON.parse(readFileSync(join(tmpdir(), `${database}.key.json`), 'utf8')) as { key: string };
const db = new PostgresDatabase({
  url: url.toString(),
  poolSize: 1,
  applicationName: 'ferry-history-stages',
});
const keys = new ApiKeysService(db, config);
const repository = new RequestsV3Repository(db);
const pipe = createValidationPipe();
const raw = Object.fromEntries(new URLSearchParams(queryString));

const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
const backend = rows[0].pid;
const nodeMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function stage(name: string, fn: () => unknown): Promise<void> {
  for (let i = 0; i < Math.min(200, iterations); i += 1) await fn();
  const node = nodeMs();
  const pg = processCpuMs(backend) ?? 0;
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) await fn();
  const per = (ms: number) => ((1000 * ms) / iterations).toFixed(1).padStart(7);
  write(
    `${name.padEnd(34)} Node ${per(nodeMs() - node)} µs, PostgreSQL ${per((processCpuMs(backend) ?? 0) - pg)} µs, ` +
      `wall ${per(performance.now() - started)} µs per call`,
  );
}

const apiKey = (await keys.authenticate(key))!;
const dto = (await pipe.transform(raw, {
  type: 'query',
  metatype: RequestsV3QueryDto,
})) as RequestsV3QueryDto;
const query = parseRequestsV3Query(dto, apiKey.id);
const page = await repository.list(query);
write(`${page.length} bytes`);
await stage('authenticate (HMAC + SELECT)', () => keys.authenticate(key));
await stage('authenticate again', () => keys.authenticate(key));
await stage('validation pipe', () => pipe.transform(raw, { type: 'query', metatype: RequestsV3QueryDto }));
await stage('parseRequestsV3Query', () => parseRequestsV3Query(dto, apiKey.id));
await stage('repository.list', () => repository.list(query));
const sql = listSql(query);
await stage('list SQL, unnamed', () => db.query(sql.text, sql.params));
await stage('list SQL, prepared', () => db.query(sql.text, sql.params, { name: 'history-list' }));
const inlined = {
  text: sql.text.replace(/LIMIT \$(\d+)::integer/, () => `LIMIT ${query.limit + 1}`),
  params: sql.params.slice(0, -1),
};
await stage('list SQL, limit inlined, prepared', () =>
  db.query(inlined.text, inlined.params, { name: 'history-inlined' }),
);
await stage('list SQL, limit inlined, unnamed', () => db.query(inlined.text, inlined.params));
await stage('list SQL ids only, prepared', () =>
  db.query(sql.text.replace(/SELECT id, .*? AS referrer,/s, 'SELECT id,'), sql.params, {
    name: 'history-ids',
  }),
);
await stage('list SQL text, prepared', () =>
  db.query(sql.text.replace("state->'v3' AS record", "(state->'v3')::text AS record"), sql.params, {
    name: 'history-text',
  }),
);
const id = process.env.ID ?? '';
const term = process.env.TERM_VALUE ?? '';
await stage('pkey lookup, record', () => db.query(`SELECT state->'v3' FROM requests_v3 WHERE id = $1`, [id]));
await stage('pkey lookup, id', () => db.query(`SELECT id FROM requests_v3 WHERE id = $1`, [id]));
await stage('pkey lookup, id, prepared', () =>
  db.query(`SELECT id FROM requests_v3 WHERE id = $1`, [id], { name: 'pk' }),
);
await stage('GIN term, ids', () =>
  db.query(`SELECT id FROM requests_v3 WHERE listed AND search_terms && $1::text[]`, [[term]]),
);
await stage('GIN term, ids, g1 table', () =>
  db.query(`SELECT id FROM requests_v3_g1 WHERE listed AND search_terms && $1::text[]`, [[term]]),
);
await stage('auth SQL, prepared', () =>
  db.query('SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', ['x'], { name: 'auth' }),
);

await stage('SELECT 1', () => db.query('SELECT 1'));
await db.close();
