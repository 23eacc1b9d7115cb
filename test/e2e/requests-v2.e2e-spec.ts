import { CommandBus } from '@nestjs/cqrs';
import { randomBytes } from 'node:crypto';
import { ApiKeysService } from '../../src/api-keys/api-keys.service.js';
import { ManualClock } from '../../src/common/clock.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import type { RequestCommand } from '../../src/requests/domain/request-decide.js';
import type { RequestQuotedData } from '../../src/requests/domain/request-events.js';
import { sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';
import { scenario } from '../unit/status/request-scenarios.js';

const TODAY = '2026-11-22T12:00:00.000Z';
const DEPRECATION_HEADERS = {
  deprecation: '@1784678400',
  sunset: 'Tue, 24 Nov 2026 00:00:00 GMT',
  link: '</requests/v3>; rel="successor-version"',
};
const justBefore = (iso: string) => new Date(Date.parse(iso) - 1);

interface V2Page {
  requests: { id: string; status: string; data: Record<string, unknown> & { inTxs: { hash: string }[] } }[];
  continuation: string | null;
  deprecation: Record<string, string>;
}

describe('GET /requests/v2 (deprecated)', () => {
  let app: TestApp;
  let clock: ManualClock;
  let caller = 0;
  /** Each test calls from its own address, so the per-caller limit of one test never spills into another. */
  const nextIp = () => `10.0.${Math.floor(caller / 250)}.${(caller++ % 250) + 1}`;

  const run = async (requestId: string, commands: RequestCommand[]) => {
    for (const command of commands) {
      await app.app.get(CommandBus).execute(new ExecuteRequestCommand(requestId, command));
    }
  };
  const get = (query = '', options: { ip?: string; key?: string } = {}) =>
    app.http.inject({
      method: 'GET',
      url: `/requests/v2${query}`,
      remoteAddress: options.ip ?? nextIp(),
      headers: options.key === undefined ? {} : { 'x-api-key': options.key },
    });
  const page = async (query = '', ip?: string): Promise<V2Page> => {
    const response = await get(query, { ip });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const ids = async (query: string) => (await page(query)).requests.map((request) => request.id);

  // One request down each path; sampleQuote(n) is quoted n minutes after 2026-11-01, so newest = highest n.
  const success = sampleQuote(201, { referrer: 'wallet.example' });
  const refunded = sampleQuote(202);
  const refundFailed = sampleQuote(203, { referrer: 'wallet.example' });
  const expired = sampleQuote(204);
  const depositing = sampleQuote(205);
  const pending = sampleQuote(206);
  const quoteOnly = sampleQuote(207);
  const otherChains = sampleQuote(208, { originChainId: 10, destinationChainId: 8453 });
  const listedNewestFirst = [otherChains, pending, depositing, refundFailed, refunded, success].map(
    (quote) => quote.requestId,
  );
  const paths = (quote: RequestQuotedData) =>
    scenario(quote, Number.parseInt(quote.requestId.slice(2, 10), 16));

  beforeAll(async () => {
    clock = new ManualClock(new Date(TODAY));
    app = await startTestApp({ API_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex') }, [], clock);
    await run(success.requestId, paths(success).success);
    await run(refunded.requestId, paths(refunded).refunded);
    await run(refundFailed.requestId, paths(refundFailed).refundFailed);
    await run(expired.requestId, paths(expired).expired);
    await run(depositing.requestId, paths(depositing).depositing);
    await run(pending.requestId, paths(pending).success.slice(0, 3));
    await run(quoteOnly.requestId, [paths(quoteOnly).recordQuote]);
    await run(otherChains.requestId, paths(otherChains).success);
    await waitForProjections(app);
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(() => clock.set(TODAY));

  it('lists requests that saw a deposit, newest first, with the deprecation headers and notice', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject(DEPRECATION_HEADERS);
    const body: V2Page = response.json();
    expect(body.requests.map((request) => request.id)).toEqual(listedNewestFirst);
    expect(body.continuation).toBeNull();
    expect(body.deprecation).toEqual({
      deprecatedAt: '2026-07-22T00:00:00.000Z',
      sunsetAt: '2026-11-24T00:00:00.000Z',
      successor: '/requests/v3',
      message: expect.stringContaining('15 requests per minute'),
    });
  });

  it('renders each path as a v2 record: v2 statuses, hash, N/A reasons, root referrer', async () => {
    const byId = new Map((await page()).requests.map((request) => [request.id, request]));
    const done = byId.get(success.requestId)!;
    expect(done).toMatchObject({
      status: 'success',
      referrer: 'wallet.example',
      moonpayId: null,
      depositAddress: null,
      data: {
        failReason: 'N/A',
        refundFailReason: 'N/A',
        metadata: { sender: success.sender, recipient: success.recipient, rate: success.rate },
        fees: { gas: '0', fixed: '20000', price: '0', gateway: '0' },
        feesUsd: { gas: '0', fixed: '0.02', price: '0', gateway: '0' },
        expandedPriceImpact: { relay: { usd: '0' } },
        price: success.route.destination!.inputCurrency.amount,
        currency: 'usdc',
        feeCurrency: 'usdc',
        subsidizedRequest: false,
        subsidizedFee: '0',
      },
    });
    expect(done.data.inTxs).toEqual([expect.objectContaining({ hash: paths(success).depositHash })]);
    expect(done.data.inTxs[0]).not.toHaveProperty('txHash');
    expect(done).not.toHaveProperty('sender');
    expect(done.data).not.toHaveProperty('route');
    expect(byId.get(refunded.requestId)).toMatchObject({
      status: 'refund',
      data: { failReason: 'FILL_REVERTED', refundFailReason: 'N/A' },
    });
    expect(byId.get(refundFailed.requestId)).toMatchObject({
      status: 'failure',
      data: { failReason: 'FILL_REVERTED', refundFailReason: 'REFUND_REVERTED' },
    });
    // Three weeks in flight: far past max(3 × 12 s, 5 min).
    expect(byId.get(depositing.requestId)!.status).toBe('delayed');
    expect(byId.get(pending.requestId)!.status).toBe('delayed');
    expect(byId.has(expired.requestId)).toBe(false);
    expect(byId.has(quoteOnly.requestId)).toBe(false);
  });

  it('derives delayed at read time from the clock: pending within the estimate, delayed after', async () => {
    const seenAt = Date.parse(pending.quotedAt) + 5_000;
    const statusAt = async (at: number) => {
      clock.set(new Date(at));
      return (await page(`?hash=${paths(pending).depositHash}`)).requests[0].status;
    };
    expect(await statusAt(seenAt + 60_000)).toBe('pending');
    expect(await statusAt(seenAt + 5 * 60_000)).toBe('pending');
    expect(await statusAt(seenAt + 5 * 60_000 + 1)).toBe('delayed');
  });

  it('pages with an opaque keyset continuation until it is null', async () => {
    const seen: string[] = [];
    let continuation: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=4${continuation ? `&continuation=${continuation}` : ''}`;
      const body = await page(query);
      expect(body.requests.length).toBeLessThanOrEqual(4);
      seen.push(...body.requests.map((request) => request.id));
      continuation = body.continuation;
      pages += 1;
    } while (continuation);
    expect(pages).toBe(2);
    expect(seen).toEqual(listedNewestFirst);
    expect(await ids('?limit=6')).toEqual(listedNewestFirst);
    expect((await page('?limit=6')).continuation).toBeNull();
    const next = (await page('?limit=5')).continuation!;
    expect(await ids(`?limit=5&continuation=${next}`)).toEqual([success.requestId]);
    // A continuation belongs to the filters it was issued for.
    const refused = await get(`?limit=5&originChainId=31337&continuation=${next}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      errorCode: 'INVALID_INPUT',
      errorData: [{ field: 'continuation' }],
    });
  });

  it('filters by user, chains, any transaction hash, referrer and time, combined with AND', async () => {
    const upper = (hex: string) => `0x${hex.slice(2).toUpperCase()}`;
    expect(await ids(`?user=${upper(success.user)}`)).toEqual([success.requestId]);
    expect(await ids('?originChainId=10')).toEqual([otherChains.requestId]);
    expect(await ids('?destinationChainId=8453')).toEqual([otherChains.requestId]);
    expect(await ids('?originChainId=31337&destinationChainId=8453')).toEqual([]);
    expect(await ids(`?hash=${upper(paths(success).fillHash)}`)).toEqual([success.requestId]);
    expect(await ids(`?hash=${paths(refunded).refundHash}`)).toEqual([refunded.requestId]);
    expect(await ids(`?hash=${paths(refunded).depositHash}`)).toEqual([refunded.requestId]);
    expect(await ids('?referrer=wallet.example')).toEqual([refundFailed.requestId, success.requestId]);
    expect(await ids('?referrer=wallet.example&user=' + success.user)).toEqual([success.requestId]);
    const second = (quote: RequestQuotedData) => Date.parse(quote.quotedAt) / 1000;
    expect(await ids(`?startTimestamp=${second(refunded)}&endTimestamp=${second(refunded)}`)).toEqual([
      refunded.requestId,
    ]);
    expect(await ids(`?startTimestamp=${second(pending)}`)).toEqual(listedNewestFirst.slice(0, 2));
    expect(await ids(`?endTimestamp=${second(refunded)}`)).toEqual([refunded.requestId, success.requestId]);
    expect(await ids(`?endTimestamp=${second(refunded) - 1}`)).toEqual([success.requestId]);
    expect(await ids('?unknownParameter=1&limit=1')).toEqual([otherChains.requestId]);
  });

  it.each([
    ['limit=0'],
    ['limit=51'],
    ['limit=abc'],
    ['limit=1.5'],
    ['originChainId=-1'],
    ['originChainId=x'],
    ['destinationChainId=1e400'],
    ['originChainId=99999999999999999999'],
    ['startTimestamp=abc'],
    ['endTimestamp=999999999999999'],
    ['continuation=not-a-cursor'],
    ['continuation=%21%21'],
    [`continuation=${Buffer.from('["yesterday","x"]').toString('base64url')}`],
    ['user=a&user=b'],
    [`hash=0x${'a'.repeat(200)}`],
    ['user='],
  ])('answers %s with 400 INVALID_INPUT, never a 500', async (query) => {
    const response = await get(`?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errorCode: 'INVALID_INPUT' });
    expect(response.headers).toMatchObject(DEPRECATION_HEADERS);
  });

  it('answers an invalid API key with 401 (a key is optional, but a wrong one is refused)', async () => {
    const response = await get('', { key: 'fk_wrong' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ errorCode: 'UNAUTHORIZED' });
  });

  describe('the shrinking rate limit (per caller: API key id, else IP address)', () => {
    /** Sends `count` requests from one caller; returns their status codes and the last response. */
    const burst = async (count: number, options: { ip: string; key?: string }) => {
      const codes: number[] = [];
      let last = await get('', options);
      codes.push(last.statusCode);
      for (let i = 1; i < count; i += 1) {
        last = await get('', options);
        codes.push(last.statusCode);
      }
      return { codes, last };
    };
    const expectLimit = async (at: Date, limit: number) => {
      clock.set(at);
      const ip = nextIp();
      const { codes, last } = await burst(limit + 1, { ip });
      expect(codes.slice(0, limit)).toEqual(Array(limit).fill(200));
      expect(codes[limit]).toBe(429);
      expect(last.headers).toMatchObject({
        ...DEPRECATION_HEADERS,
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': '0',
        'retry-after': '60',
      });
      expect(last.json()).toEqual({
        message: expect.stringContaining(`${limit} requests per minute`),
        errorCode: 'RATE_LIMITED',
        statusCode: 429,
        errorData: { limit, retryAfterSeconds: 60 },
      });
      return ip;
    };

    it('has no limit before 1 Sep 2026', async () => {
      clock.set(justBefore('2026-09-01T00:00:00Z'));
      const { codes, last } = await burst(70, { ip: nextIp() });
      expect(codes).toEqual(Array(70).fill(200));
      expect(last.headers['x-ratelimit-limit']).toBeUndefined();
      clock.set('2026-07-21T23:59:59.999Z');
      expect((await get()).statusCode).toBe(200);
    });

    it('allows 60 per minute from 1 Sep 2026', async () => {
      await expectLimit(new Date('2026-09-01T00:00:00Z'), 60);
    });

    it('allows 30 per minute from 1 Oct 2026 (60 until just before)', async () => {
      clock.set(justBefore('2026-10-01T00:00:00Z'));
      const ip = nextIp();
      expect((await get('', { ip })).headers['x-ratelimit-limit']).toBe('60');
      await expectLimit(new Date('2026-10-01T00:00:00Z'), 30);
    });

    it('allows 15 per minute from 1 Nov 2026 until the sunset, and again once the minute has passed', async () => {
      clock.set(justBefore('2026-11-01T00:00:00Z'));
      expect((await get()).headers['x-ratelimit-limit']).toBe('30');
      await expectLimit(new Date('2026-11-01T00:00:00Z'), 15);
      const ip = await expectLimit(new Date('2026-11-23T23:58:00Z'), 15);
      clock.advance(59_000);
      expect((await get('', { ip })).statusCode).toBe(429);
      clock.advance(1_000);
      expect((await get('', { ip })).statusCode).toBe(200);
    });

    it('counts a caller with a key by its key, wherever it calls from; each key has its own allowance', async () => {
      clock.set('2026-11-10T00:00:00Z');
      const apiKeys = app.app.get(ApiKeysService);
      const first = await apiKeys.create({ label: 'v2 caller one' });
      const second = await apiKeys.create({ label: 'v2 caller two' });
      const codes: number[] = [];
      for (let i = 0; i < 16; i += 1)
        codes.push((await get('', { ip: nextIp(), key: first.key })).statusCode);
      expect(codes).toEqual([...Array(15).fill(200), 429]);
      const sharedIp = nextIp();
      expect((await get('', { ip: sharedIp, key: second.key })).statusCode).toBe(200);
      expect((await get('', { ip: sharedIp })).statusCode).toBe(200);
    });
  });

  describe('retirement', () => {
    it.each([
      ['at the sunset', '2026-11-24T00:00:00.000Z'],
      ['after the sunset', '2027-01-01T00:00:00.000Z'],
    ])('answers 410 ENDPOINT_RETIRED %s, before looking at the key or the parameters', async (_when, at) => {
      clock.set(at);
      for (const options of [{}, { key: 'fk_wrong' }]) {
        for (const query of ['', '?limit=abc']) {
          const response = await get(query, options);
          expect(response.statusCode).toBe(410);
          expect(response.headers).toMatchObject(DEPRECATION_HEADERS);
          expect(response.json()).toEqual({
            message: expect.stringContaining('retired on 2026-11-24'),
            errorCode: 'ENDPOINT_RETIRED',
            statusCode: 410,
            successor: '/requests/v3',
          });
        }
      }
    });

    it('still answers just before the sunset', async () => {
      clock.set(justBefore('2026-11-24T00:00:00Z'));
      expect((await get()).statusCode).toBe(200);
    });
  });
});
