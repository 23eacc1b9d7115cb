import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateNested } from 'class-validator';
import { ApiError } from '../../src/common/http/api-error.js';
import { ERROR_CODES } from '../../src/common/http/error-codes.js';
import { startTestApp, type TestApp } from '../support/app.js';

class FeeDto {
  @Matches(/^0x[a-fA-F0-9]{40}$/)
  recipient!: string;

  @Matches(/^[0-9]+$/)
  fee!: string;
}

class EchoBody {
  @Matches(/^[0-9]+$/)
  amount!: string;

  @IsIn(['EXACT_INPUT', 'EXACT_OUTPUT'])
  tradeType!: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => FeeDto)
  appFees?: FeeDto[];
}

class EchoQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;

  @IsOptional()
  @IsString()
  term?: string;
}

/** A fixture controller: the conventions are the app's, the routes are the test's. */
@Controller('fixture')
class FixtureController {
  @Post('echo')
  echo(@Body() body: EchoBody) {
    return body;
  }

  @Get('echo')
  query(@Query() query: EchoQuery) {
    return query;
  }

  @Get('conflict')
  conflict() {
    throw new ApiError('CONFLICT', 'The thing changed', { revision: '3' });
  }

  @Get('boom')
  boom() {
    throw new Error('secret internal detail');
  }
}

@Module({ controllers: [FixtureController] })
class FixtureModule {}

describe('HTTP conventions', () => {
  let sut: TestApp;

  beforeAll(async () => {
    sut = await startTestApp({}, [FixtureModule]);
  });
  afterAll(async () => {
    await sut?.close();
  });

  const expectErrorBody = (body: string, errorCode: keyof typeof ERROR_CODES) => {
    const parsed = JSON.parse(body);
    expect(parsed).toMatchObject({ errorCode, message: expect.any(String) });
    return parsed;
  };

  it('answers an unknown route with 404 ROUTE_NOT_FOUND', async () => {
    const response = await sut.http.inject({ method: 'GET', url: '/no/such/route?x=1' });
    expect(response.statusCode).toBe(404);
    expect(expectErrorBody(response.body, 'ROUTE_NOT_FOUND').message).toBe('No route GET /no/such/route');
  });

  it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
    const response = await sut.http.inject({
      method: 'POST',
      url: '/fixture/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"amount": "1",',
    });
    expect(response.statusCode).toBe(400);
    expectErrorBody(response.body, 'MALFORMED_JSON');
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await sut.http.inject({
      method: 'POST',
      url: '/fixture/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ amount: '1', pad: 'x'.repeat(sut.config.http.bodyLimitBytes) }),
    });
    expect(response.statusCode).toBe(413);
    expectErrorBody(response.body, 'PAYLOAD_TOO_LARGE');
  });

  it('answers a body that is not JSON with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await sut.http.inject({
      method: 'POST',
      url: '/fixture/echo',
      headers: { 'content-type': 'text/xml' },
      payload: '<amount>1</amount>',
    });
    expect(response.statusCode).toBe(415);
    expectErrorBody(response.body, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers invalid fields with 400 INVALID_INPUT listing each field, nested ones by path', async () => {
    const response = await sut.http.inject({
      method: 'POST',
      url: '/fixture/echo',
      payload: { amount: '1.5', tradeType: 'SIDEWAYS', appFees: [{ recipient: '0x12', fee: '10' }] },
    });
    expect(response.statusCode).toBe(400);
    const body = expectErrorBody(response.body, 'INVALID_INPUT');
    expect(body.errorData.map((problem: { field: string }) => problem.field).sort()).toEqual([
      'amount',
      'appFees[0].recipient',
      'tradeType',
    ]);
  });

  it('drops unknown parameters instead of refusing them, and converts query types', async () => {
    const post = await sut.http.inject({
      method: 'POST',
      url: '/fixture/echo',
      payload: { amount: '10', tradeType: 'EXACT_INPUT', referrer: 'relay.link', somethingNew: true },
    });
    expect(post.statusCode).toBe(201);
    expect(JSON.parse(post.body)).toEqual({ amount: '10', tradeType: 'EXACT_INPUT' });
    const get = await sut.http.inject({ method: 'GET', url: '/fixture/echo?limit=20&unknown=1' });
    expect(JSON.parse(get.body)).toEqual({ limit: 20 });
  });

  it('refuses out-of-range query values with 400', async () => {
    const response = await sut.http.inject({ method: 'GET', url: '/fixture/echo?limit=500' });
    expect(response.statusCode).toBe(400);
    expectErrorBody(response.body, 'INVALID_INPUT');
  });

  it('answers an ApiError with its registered status, code and errorData', async () => {
    const response = await sut.http.inject({ method: 'GET', url: '/fixture/conflict' });
    expect(response.statusCode).toBe(409);
    expect(JSON.parse(response.body)).toEqual({
      message: 'The thing changed',
      errorCode: 'CONFLICT',
      statusCode: 409,
      errorData: { revision: '3' },
    });
  });

  it('answers an unexpected error with 500 INTERNAL_ERROR and the request id, leaking nothing', async () => {
    const response = await sut.http.inject({
      method: 'GET',
      url: '/fixture/boom',
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toEqual({
      message: 'Internal error',
      errorCode: 'INTERNAL_ERROR',
      statusCode: 500,
      requestId: 'trace-123',
    });
    expect(response.body).not.toContain('secret');
    expect(response.headers['x-request-id']).toBe('trace-123');
  });

  it('gives every response a request id, replacing an unsafe one', async () => {
    const response = await sut.http.inject({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'bad id\n' },
    });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('allows the headers browser clients send in CORS preflights', async () => {
    const response = await sut.http.inject({
      method: 'OPTIONS',
      url: '/quote/v2',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,relay-sdk-version,relay-kit-ui-version',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-headers']).toContain('relay-sdk-version');
    // relay-kit's UI sends its version on /quote/v2: without it in the list the browser's preflight fails.
    expect(response.headers['access-control-allow-headers']).toContain('relay-kit-ui-version');
  });

  it('serves the API reference at /documentation and its JSON', async () => {
    const page = await sut.http.inject({ method: 'GET', url: '/documentation' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    const json = await sut.http.inject({ method: 'GET', url: '/documentation/json' });
    expect(JSON.parse(json.body).paths['/health']).toBeDefined();
  });
});
