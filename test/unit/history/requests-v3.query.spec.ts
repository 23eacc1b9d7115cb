import 'reflect-metadata';
import { ApiError } from '../../../src/common/http/api-error.js';
import { createValidationPipe } from '../../../src/common/http/validation.pipe.js';
import { encodeContinuation } from '../../../src/history/continuation.js';
import { RequestsV3QueryDto } from '../../../src/history/requests-v3.query.dto.js';
import { compareDecimals, parseRequestsV3Query } from '../../../src/history/requests-v3.query.js';
import { countSql, listSql } from '../../../src/history/requests-v3.sql.js';

const CALLER = '5f0c3d52-8d1e-4c4e-9a39-7d0cbb2c1e11';
const OTHER = '11111111-2222-4333-8444-555555555555';
const pipe = createValidationPipe();

/** The DTO exactly as the app's validation pipe makes it from a query string's values. */
async function dto(query: Record<string, string | string[]>): Promise<RequestsV3QueryDto> {
  return (await pipe.transform(query, { type: 'query', metatype: RequestsV3QueryDto })) as RequestsV3QueryDto;
}

async function problemsOf(query: Record<string, string | string[]>): Promise<{ field: string }[]> {
  try {
    await dto(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const body = (error as ApiError).getResponse() as { errorCode: string; errorData: { field: string }[] };
    expect(body.errorCode).toBe('INVALID_INPUT');
    return body.errorData;
  }
  throw new Error('expected 400');
}

const parse = async (query: Record<string, string | string[]>) =>
  parseRequestsV3Query(await dto(query), CALLER);

const thrown = async (query: Record<string, string | string[]>): Promise<ApiError> => {
  try {
    await parse(query);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an ApiError');
};

describe(RequestsV3QueryDto.name, () => {
  it('accepts every parameter of the spec in its shape', async () => {
    const sut = await dto({
      term: '0xAB',
      originChainId: '8453',
      status: 'refund',
      requestType: 'Crosschain Swap',
      startTimestamp: '1793491200',
      amountUsdMin: '10.5',
      features: ['app_fees,deposit_address', 'fast_fill'],
      privateChainsToInclude: '1,10',
      includeChildRequests: 'false',
      limit: '50',
      sortBy: 'amountUsd',
      sortDirection: 'desc',
      includeTotal: 'true',
      includeAuthenticatedData: 'true',
    });
    expect(sut.features).toEqual(['app_fees', 'deposit_address', 'fast_fill']);
    expect(sut.privateChainsToInclude).toEqual(['1', '10']);
    expect(sut.limit).toBe(50);
  });

  it('drops what is not a v3 parameter (hash, referrer) instead of refusing it', async () => {
    const sut = await dto({ hash: '0xab', referrer: 'me', status: 'success' });
    expect(sut).toEqual(Object.assign(new RequestsV3QueryDto(), { status: 'success' }));
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '51' }, 'limit'],
    [{ limit: '2.5' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ status: 'waiting' }, 'status'],
    [{ status: 'submitted' }, 'status'],
    [{ sortBy: 'id' }, 'sortBy'],
    [{ sortDirection: 'up' }, 'sortDirection'],
    [{ originChainId: '0' }, 'originChainId'],
    [{ chainId: '1e3' }, 'chainId'],
    [{ chainId: '99999999999999999999' }, 'chainId'],
    [{ user: '' }, 'user'],
    [{ user: ['0xa', '0xb'] }, 'user'],
    [{ term: 'a\u0000' }, 'term'],
    [{ apiKey: 'fk_secret' }, 'apiKey'],
    [{ startTimestamp: '-1' }, 'startTimestamp'],
    [{ startTimestamp: '999999999999' }, 'startTimestamp'],
    [{ amountUsdMin: '1e3' }, 'amountUsdMin'],
    [{ fillTimeMax: 'soon' }, 'fillTimeMax'],
    [{ features: 'app fees' }, 'features'],
    [{ features: '' }, 'features'],
    [{ privateChainsToInclude: 'x' }, 'privateChainsToInclude'],
    [{ includeTotal: 'yes' }, 'includeTotal'],
    [{ includeChildRequests: '1' }, 'includeChildRequests'],
    [{ continuation: "' OR 1=1 --" }, 'continuation'],
    [{ filters: ['[]', '[]'] }, 'filters'],
  ])('refuses %j', async (query, field) => {
    expect((await problemsOf(query)).map((p) => p.field)).toEqual([field]);
  });
});

describe(parseRequestsV3Query.name, () => {
  it('defaults: newest first, 20 per page, no total, no referrer', async () => {
    const sut = await parse({});
    expect(sut).toMatchObject({
      sortBy: 'createdAt',
      sortDirection: 'desc',
      limit: 20,
      after: null,
      includeTotal: false,
      authenticatedFor: null,
    });
    expect((await parse({ sortBy: 'amountUsd' })).sortDirection).toBe('asc');
    expect((await parse({ sortBy: 'updatedAt' })).sortDirection).toBe('desc');
    expect((await parse({ includeAuthenticatedData: 'true' })).authenticatedFor).toBe(CALLER);
  });

  it('normalises EVM hex so that a query and its upper-cased twin are one query', async () => {
    const lower = await parse({ user: '0xabcdef', orderId: '0xff' });
    const upper = await parse({ user: '0xABCDEF', orderId: '0xFF' });
    expect(upper.filter).toEqual(lower.filter);
    expect(upper.digest).toBe(lower.digest);
    expect(
      (await parse({ recipient: 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy' })).filter.conditions[0]
        .values,
    ).toEqual(['DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy']);
  });

  it('binds the digest to filters and sort but not to the page size or the extras', async () => {
    const base = await parse({ status: 'success' });
    expect((await parse({ status: 'success', limit: '5', includeTotal: 'true' })).digest).toBe(base.digest);
    expect((await parse({ status: 'success', sortDirection: 'desc' })).digest).toBe(base.digest);
    expect((await parse({ status: 'failure' })).digest).not.toBe(base.digest);
    expect((await parse({ status: 'success', sortDirection: 'asc' })).digest).not.toBe(base.digest);
    expect((await parse({ status: 'success', filters: '[{"chainId":1}]' })).digest).not.toBe(base.digest);
  });

  it('reads a continuation of the same query and refuses one of another', async () => {
    const base = await parse({ status: 'success' });
    const token = encodeContinuation({ value: '2026-11-01T00:00:00.000000Z', id: '0xab' }, base.digest);
    expect((await parse({ status: 'success', continuation: token })).after).toEqual({
      value: '2026-11-01T00:00:00.000000Z',
      id: '0xab',
    });
    const error = await thrown({ status: 'failure', continuation: token });
    expect(error.getStatus()).toBe(400);
  });

  it('allows apiKey to name the caller only (403 otherwise), at the top level and in groups', async () => {
    expect((await parse({ apiKey: CALLER.toUpperCase() })).filter.conditions).toEqual([
      { key: 'apiKey', negated: false, values: [CALLER] },
    ]);
    expect(
      (await parse({ filters: JSON.stringify([{ 'not:apiKey': [CALLER, null] }]) })).filter.groups,
    ).toHaveLength(1);
    const foreign: Record<string, string>[] = [
      { apiKey: OTHER },
      { filters: JSON.stringify([{ apiKey: [CALLER, OTHER] }]) },
    ];
    for (const query of foreign) {
      const error = await thrown(query);
      expect(error.getStatus()).toBe(403);
      expect(error.getResponse()).toEqual({
        message: expect.stringContaining('apiKey'),
        errorCode: 'FORBIDDEN',
      });
    }
  });

  it('refuses empty ranges and malformed filters with 400 listing each problem', async () => {
    const error = await thrown({
      amountUsdMin: '10',
      amountUsdMax: '9.99',
      startBlock: '5',
      endBlock: '4',
      filters: '[{"fillTimeMin":1}]',
    });
    expect(error.getStatus()).toBe(400);
    expect((error.getResponse() as { errorData: { field: string }[] }).errorData.map((p) => p.field)).toEqual(
      ['filters[0].fillTimeMin', 'endBlock', 'amountUsdMax'],
    );
    await expect(parse({ amountUsdMin: '10', amountUsdMax: '10.0' })).resolves.toBeDefined();
  });

  it('makes endTimestamp inclusive to the whole second', async () => {
    const sut = await parse({ startTimestamp: '1793491200', endTimestamp: '1793491200' });
    expect(sut.filter.ranges).toEqual([
      { key: 'startTimestamp', value: '2026-11-01T00:00:00.000Z' },
      { key: 'endTimestamp', value: '2026-11-01T00:00:01.000Z' },
    ]);
  });

  it('compiles to one parameterised statement per page, with the keyset after the filters and the page size in its text', async () => {
    const base = await parse({ chainId: '10', features: 'app_fees', amountUsdMin: '5', sortBy: 'amountUsd' });
    const token = encodeContinuation({ value: '12.5', id: '0xab' }, base.digest);
    const sut = listSql({
      ...base,
      after: (
        await parse({
          chainId: '10',
          features: 'app_fees',
          amountUsdMin: '5',
          sortBy: 'amountUsd',
          continuation: token,
        })
      ).after,
    });
    expect(sut.text.replace(/\s+/g, ' ')).toContain(
      'WHERE listed AND (origin_chain_id = ANY($1::bigint[]) OR destination_chain_id = ANY($1::bigint[])) ' +
        'AND amount_usd >= $2::numeric AND features @> $3::text[] AND (amount_usd, id) > ($4::numeric, $5::text) ' +
        'ORDER BY amount_usd ASC, id ASC LIMIT 21',
    );
    expect(sut.params).toEqual([['10'], '5', ['app_fees'], '12.5', '0xab']);
    expect(countSql(base).text).toBe(
      'SELECT count(*) AS total FROM requests_v3 WHERE listed AND (origin_chain_id = ANY($1::bigint[]) OR ' +
        'destination_chain_id = ANY($1::bigint[])) AND amount_usd >= $2::numeric AND features @> $3::text[]',
    );
  });
});

describe(compareDecimals.name, () => {
  it.each([
    ['1', '1.0', 0],
    ['9.99', '10', -1],
    ['10.001', '10.0009', 1],
    ['0', '0.000000000000000001', -1],
  ])('%s vs %s', (a, b, expected) => {
    expect(compareDecimals(a, b)).toBe(expected);
  });
});
