import { CommandBus } from '@nestjs/cqrs';
import { DATABASE, type Database } from '../../src/database/database.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import type { RequestCommand } from '../../src/requests/domain/request-decide.js';
import { sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';
import { scenario } from '../unit/status/request-scenarios.js';

const PATHS = ['/intents/status/v3', '/intents/status'] as const;

/** Drives requests through the real command bus and reads `GET /intents/status/v3` (and the older path) over HTTP. */
describe('GET /intents/status/v3 and GET /intents/status', () => {
  let app: TestApp;

  const run = async (requestId: string, commands: RequestCommand[]) => {
    for (const command of commands) {
      await app.app.get(CommandBus).execute(new ExecuteRequestCommand(requestId, command));
    }
  };
  const status = async (requestId: string, path: string = PATHS[0], target = app) => {
    const response = await target.http.inject({ method: 'GET', url: `${path}?requestId=${requestId}` });
    return { code: response.statusCode, body: response.json() };
  };
  /** Both paths answer the same; returns the body after checking the status code. */
  const settledStatus = async (requestId: string) => {
    await waitForProjections(app);
    const [v3, older] = await Promise.all(PATHS.map((path) => status(requestId, path)));
    expect(v3.code).toBe(200);
    expect(older).toEqual(v3);
    return v3.body;
  };

  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers waiting for a quote right after RecordQuote, without waiting for the projection', async () => {
    const quote = sampleQuote(301);
    await run(quote.requestId, [scenario(quote, 301).recordQuote]);
    const { code, body } = await status(quote.requestId);
    expect(code).toBe(200);
    expect(body).toEqual({
      status: 'waiting',
      details: null,
      inTxHashes: [],
      txHashes: [],
      updatedAt: Date.parse(quote.quotedAt),
      originChainId: quote.originChainId,
      destinationChainId: quote.destinationChainId,
      quoteCreatedAt: Date.parse(quote.quotedAt),
      failReason: null,
      refundFailReason: null,
    });
  });

  it('follows a successful request step by step, from the read model', async () => {
    const quote = sampleQuote(302);
    const paths = scenario(quote, 302);
    const expected = [
      { status: 'waiting', inTxHashes: [], txHashes: [] },
      { status: 'waiting', inTxHashes: [paths.depositHash], txHashes: [] },
      { status: 'pending', inTxHashes: [paths.depositHash], txHashes: [] },
      { status: 'submitted', inTxHashes: [paths.depositHash], txHashes: [paths.fillHash] },
      { status: 'success', inTxHashes: [paths.depositHash], txHashes: [paths.fillHash] },
    ];
    for (const [step, command] of paths.success.entries()) {
      await run(quote.requestId, [command]);
      expect(await settledStatus(quote.requestId)).toMatchObject({
        ...expected[step],
        failReason: null,
        refundFailReason: null,
        details: null,
        originChainId: 31337,
        destinationChainId: 31338,
        quoteCreatedAt: Date.parse(quote.quotedAt),
      });
    }
    const db = app.app.get<Database>(DATABASE);
    const { rows } = await db.query<{ status: string }>('SELECT status FROM request_status WHERE id = $1', [
      quote.requestId,
    ]);
    expect(rows).toEqual([{ status: 'success' }]);
    expect((await settledStatus(quote.requestId)).updatedAt).toBe(Date.parse(quote.quotedAt) + 15_000);
  });

  it('reports a failed fill with its reason and details, then the refund', async () => {
    const quote = sampleQuote(303);
    const paths = scenario(quote, 303);
    await run(quote.requestId, paths.refunded.slice(0, 5));
    expect(await settledStatus(quote.requestId)).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: null,
      details: 'execution reverted: output below minimum',
    });
    await run(quote.requestId, paths.refunded.slice(5));
    expect(await settledStatus(quote.requestId)).toMatchObject({
      status: 'refund',
      failReason: 'FILL_REVERTED',
      refundFailReason: null,
      txHashes: [paths.fillHash, paths.refundHash],
    });
  });

  it('reports a failed refund with both reasons', async () => {
    const quote = sampleQuote(304);
    await run(quote.requestId, scenario(quote, 304).refundFailed);
    expect(await settledStatus(quote.requestId)).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: 'REFUND_REVERTED',
    });
  });

  it('reports a refund skipped as dust: still failure, refundFailReason AMOUNT_TOO_LOW_TO_REFUND, no refund hash', async () => {
    const quote = sampleQuote(310);
    const paths = scenario(quote, 310);
    await run(quote.requestId, paths.refundSkipped);
    expect(await settledStatus(quote.requestId)).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      txHashes: [paths.fillHash],
    });
  });

  it('keeps an expired quote waiting and says so in details', async () => {
    const quote = sampleQuote(305);
    await run(quote.requestId, scenario(quote, 305).expired);
    const body = await settledStatus(quote.requestId);
    expect(body).toMatchObject({ status: 'waiting', failReason: null, refundFailReason: null });
    expect(body.details).toMatch(/^Quote expired \(QUOTE_EXPIRED\)/);
  });

  it('answers depositing for a deposit handed in through the execute API, then pending', async () => {
    const quote = sampleQuote(306);
    const paths = scenario(quote, 306);
    await run(quote.requestId, paths.depositing);
    expect(await settledStatus(quote.requestId)).toMatchObject({
      status: 'depositing',
      inTxHashes: [paths.depositHash],
    });
    await run(quote.requestId, [paths.confirm]);
    expect((await settledStatus(quote.requestId)).status).toBe('pending');
  });

  it('finds a request whatever the case of its id, and needs no API key (a wrong one is ignored)', async () => {
    const quote = sampleQuote(307);
    await run(quote.requestId, [scenario(quote, 307).recordQuote]);
    const upper = `0x${quote.requestId.slice(2).toUpperCase()}`;
    expect((await status(upper)).body.status).toBe('waiting');
    const response = await app.http.inject({
      method: 'GET',
      url: `/intents/status/v3?requestId=${quote.requestId}`,
      headers: { 'x-api-key': 'fk_not-a-key' },
    });
    expect(response.statusCode).toBe(200);
  });

  it('answers an unknown request with 404 NOT_FOUND on both paths', async () => {
    const unknown = `0x${'ef'.repeat(32)}`;
    for (const path of PATHS) {
      expect(await status(unknown, path)).toEqual({
        code: 404,
        body: { message: `No request ${unknown}`, errorCode: 'NOT_FOUND', statusCode: 404 },
      });
    }
  });

  it.each([
    ['missing', ''],
    ['empty', '?requestId='],
    ['too short', `?requestId=0x${'ab'.repeat(31)}`],
    ['too long', `?requestId=0x${'ab'.repeat(33)}`],
    ['without 0x', `?requestId=${'ab'.repeat(32)}`],
    ['not hex', `?requestId=0x${'zz'.repeat(32)}`],
    ['repeated', `?requestId=0x${'ab'.repeat(32)}&requestId=0x${'cd'.repeat(32)}`],
    ['injection', `?requestId=${encodeURIComponent("0x' OR 1=1 --")}`],
  ])('answers a %s requestId with 400 INVALID_INPUT', async (_what, query) => {
    for (const path of PATHS) {
      const response = await app.http.inject({ method: 'GET', url: `${path}${query}` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        errorCode: 'INVALID_INPUT',
        errorData: [expect.objectContaining({ field: 'requestId' })],
      });
    }
  });

  describe('with the projection runner stopped (read-your-writes from the event store)', () => {
    // PROJECTIONS_RUN=false: the read model never gets a row (not even its table), as right after a quote.
    let frozen: TestApp;

    beforeAll(async () => {
      frozen = await startTestApp({ PROJECTIONS_RUN: 'false' });
    });
    afterAll(async () => {
      await frozen?.close();
    });

    it('answers from the request stream when the read model has no row, and 404 only without a stream', async () => {
      const quote = sampleQuote(308);
      const paths = scenario(quote, 308);
      const bus = frozen.app.get(CommandBus);
      await bus.execute(new ExecuteRequestCommand(quote.requestId, paths.recordQuote));
      expect(await status(quote.requestId, PATHS[0], frozen)).toMatchObject({
        code: 200,
        body: { status: 'waiting', originChainId: 31337, destinationChainId: 31338 },
      });
      for (const command of paths.refunded.slice(1)) {
        await bus.execute(new ExecuteRequestCommand(quote.requestId, command));
      }
      expect(await status(quote.requestId, PATHS[1], frozen)).toMatchObject({
        code: 200,
        body: { status: 'refund', failReason: 'FILL_REVERTED', txHashes: [paths.fillHash, paths.refundHash] },
      });
      // Nothing was ever built: every answer above came from the stream.
      const { rows } = await frozen.app
        .get<Database>(DATABASE)
        .query<{ view: string | null }>(`SELECT to_regclass('request_status')::text AS view`);
      expect(rows).toEqual([{ view: null }]);
      expect((await status(`0x${'ef'.repeat(32)}`, PATHS[0], frozen)).code).toBe(404);
    });
  });
});
