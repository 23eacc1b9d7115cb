import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { ERROR_CODES } from '../../src/common/http/error-codes.js';
import { HealthService } from '../../src/health/health.service.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';

interface Operation {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
}

/** Every operation the API documents (docs/openapi.json, checked against the app by generated-docs.e2e-spec). */
const OPERATIONS: readonly Operation[] = Object.entries(
  JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')).paths as Record<
    string,
    Record<string, unknown>
  >,
).flatMap(([path, methods]) =>
  Object.keys(methods).map((method) => ({ method: method.toUpperCase() as Operation['method'], path })),
);

const deep = (levels: number, leaf: unknown): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

/** Hostile JSON values: anything, deep nesting, huge arrays, wrong types where strings belong. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.integer({ min: 1, max: 400 }).map((levels) => deep(levels, 'x')),
  fc.integer({ min: 900, max: 3000 }).map((length) => Array.from({ length }, (_, i) => i)),
  fc.constantFrom(null, true, -1, 1e308, '', '0x', '%', '\u0000', 'a'.repeat(10_000), [], {}),
);
const FIELDS = [
  'user',
  'recipient',
  'amount',
  'txs',
  'appFees',
  'originChainId',
  'tradeType',
  'requestId',
  'txHash',
  'chainId',
  'kind',
  'url',
  'headers',
];
const hostileBody = fc.oneof(
  hostileValue,
  fc.dictionary(fc.constantFrom(...FIELDS, '__proto__', 'constructor'), hostileValue, { maxKeys: 6 }),
);
/** Path and query pieces: malformed percent escapes, long ids, odd characters. */
const hostileSegment = fc.oneof(
  fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%00', 'a'.repeat(300), '0x' + 'f'.repeat(64), '😀', '%2F'),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
);
const hostileQuery = fc.array(
  fc.tuple(fc.constantFrom('requestId', 'limit', 'continuation', 'user', 'x', '%'), hostileSegment),
  {
    maxLength: 4,
  },
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
);

/**
 * The spec's error rules as properties over every documented route, with a fixed seed: no hostile input gets a 5xx;
 * every 4xx is the spec's body with a string `message` and a registered `errorCode` (and `statusCode`); and a
 * refused request appends no event.
 */
describe('every route under hostile input', () => {
  let sut: TestApp;
  let db: Database;
  const events = async () =>
    Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events')).rows[0].n);

  beforeAll(async () => {
    // Projections run, so every read route is ready: a 503 could only come from the input.
    sut = await startTestApp({
      ADMIN_API_TOKEN: 'fuzz-admin-token-0123456789abcdef',
      PROJECTIONS_RUN: 'true',
    });
    db = sut.app.get<Database>(DATABASE);
    await waitForProjections(sut);
    // /health answers from its probe's last reading: take one now that the projections are live, so a 503 there could
    // only come from the input too.
    await sut.app.get(HealthService).readNow();
  });
  afterAll(() => sut?.close());

  it('documents the routes it fuzzes', () => {
    expect(OPERATIONS.length).toBeGreaterThanOrEqual(16);
  });

  it('answers hostile bodies, paths, queries and content types with a registered 4xx, never a 5xx, and appends nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPERATIONS),
        hostileSegment,
        hostileQuery,
        hostileBody,
        contentType,
        fc.boolean(),
        async (operation, segment, query, body, type, raw) => {
          const path = operation.path.replace(/\{[^}]+\}/g, segment);
          const search = query.map(([key, value]) => `${key}=${value}`).join('&');
          const payload = raw
            ? String(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 50_000)
            : JSON.stringify(body);
          const before = await events();
          const response = await sut.http.inject({
            method: operation.method,
            url: search ? `${path}?${search}` : path,
            headers: {
              ...(type ? { 'content-type': type } : {}),
              'x-admin-token': 'fuzz-admin-token-0123456789abcdef',
            },
            ...(operation.method === 'GET' || operation.method === 'DELETE' ? {} : { payload }),
          });
          const where = `${operation.method} ${path}?${search} ${type} → ${response.statusCode} ${response.body.slice(0, 200)}`;
          if (response.statusCode >= 500) throw new Error(`5xx: ${where}`);
          if (response.statusCode >= 400) {
            const answer = JSON.parse(response.body) as {
              message?: unknown;
              errorCode?: unknown;
              statusCode?: unknown;
            };
            if (typeof answer.message !== 'string' || !(String(answer.errorCode) in ERROR_CODES)) {
              throw new Error(`not the spec's error body: ${where}`);
            }
            if (answer.statusCode !== response.statusCode) throw new Error(`statusCode differs: ${where}`);
            if ((await events()) !== before) throw new Error(`a refused request appended an event: ${where}`);
          }
        },
      ),
      { seed: 20261124, numRuns: 400 },
    );
  }, 300_000);
});
