import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { ApiError } from '../../../src/common/http/api-error.js';
import { toErrorBody } from '../../../src/common/http/http-error.filter.js';
import { JsonLogger } from '../../../src/common/logging/json-logger.js';

const request = { id: 'req-1', method: 'GET', url: '/requests/v3?term=x' };

describe(toErrorBody.name, () => {
  it('keeps an ApiError as it is, adding the request id only to server errors', () => {
    expect(toErrorBody(new ApiError('INVALID_INPUT', 'bad', [{ field: 'amount' }]), request)).toEqual({
      status: 400,
      body: { message: 'bad', errorCode: 'INVALID_INPUT', errorData: [{ field: 'amount' }] },
    });
    expect(toErrorBody(new ApiError('SERVICE_UNAVAILABLE', 'db down'), request).body.requestId).toBe('req-1');
  });

  it('maps Nest and Fastify errors to documented codes', () => {
    expect(toErrorBody(new NotFoundException(), request).body).toEqual({
      message: 'No route GET /requests/v3',
      errorCode: 'ROUTE_NOT_FOUND',
    });
    expect(toErrorBody(new BadRequestException('nope'), request).body.errorCode).toBe('INVALID_INPUT');
    const parseError = new HttpException('Body is not valid JSON', 400, {
      cause: Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY' }),
    });
    expect(toErrorBody(parseError, request).body.errorCode).toBe('MALFORMED_JSON');
    expect(toErrorBody(new HttpException('slow down', 429), request).body.errorCode).toBe('RATE_LIMITED');
  });

  it('turns anything unexpected into 500 INTERNAL_ERROR without its message', () => {
    expect(toErrorBody(new TypeError('cannot read x of undefined'), request)).toEqual({
      status: 500,
      body: { message: 'Internal error', errorCode: 'INTERNAL_ERROR', requestId: 'req-1' },
    });
  });
});

describe(JsonLogger.name, () => {
  it('writes one JSON line per entry with secrets redacted and levels filtered', () => {
    const lines: string[] = [];
    const sut = new JsonLogger('info', (line) => lines.push(line));
    sut.log(
      { msg: 'key created', apiKey: 'sk_live_123', nested: { 'x-api-key': 'abc', amount: 10n } },
      'ApiKeys',
    );
    sut.debug('hidden');
    sut.error(new Error('boom'), 'Runner');
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]);
    expect(first).toMatchObject({
      level: 'info',
      context: 'ApiKeys',
      msg: 'key created',
      apiKey: '[redacted]',
    });
    expect(first.nested).toEqual({ 'x-api-key': '[redacted]', amount: '10' });
    expect(lines.join('')).not.toContain('sk_live_123');
    expect(JSON.parse(lines[1])).toMatchObject({ level: 'error', context: 'Runner', msg: 'boom' });
  });
});
