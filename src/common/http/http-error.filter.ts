import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QuoteError } from '../../quotes/domain/quote-error.js';
import { ApiError, type ErrorBody } from './api-error.js';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import { routeNotFoundBody } from './route-not-found.js';
import { ERROR_CODE } from '../../metrics/http-metrics.js';
import { isDatabaseUnavailable } from '../../database/database-unavailable.js';

/**
 * Every error leaves the app as the spec's body with a documented `errorCode`. Errors Ferry did not anticipate
 * become 500 INTERNAL_ERROR with the request id, and are logged with their stack; nothing internal leaks out.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpErrorFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const { status, body } = toErrorBody(exception, request);
    (request as unknown as Record<symbol, string>)[ERROR_CODE] = body.errorCode;
    if (status >= 500) {
      this.logger.error({
        msg: 'request failed',
        reqId: request.id,
        method: request.method,
        url: request.url,
        err: describe(exception),
      });
    }
    // `statusCode` (additive): Relay's SDK reads it from error bodies to report the status.
    // A 503 is temporary (a dependency down, a read model being built): say when to come back.
    if (status === 503) void reply.header('retry-after', '1');
    void reply
      .status(status)
      .header('content-type', 'application/json; charset=utf-8')
      .send({ ...body, statusCode: status });
  }
}

/** Maps anything thrown (ours, Nest's, Fastify's) to a status and the spec's error body. */
/** Answers an error raised by Fastify before any route (a malformed URL, a too long parameter). */
export function frameworkErrorBody(error: { code?: string; message: string }): {
  status: number;
  body: ErrorBody;
} {
  const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
  if (!known) return { status: 500, body: { message: 'Internal error', errorCode: 'INTERNAL_ERROR' } };
  return { status: ERROR_CODES[known[0]].status, body: { message: known[1], errorCode: known[0] } };
}

export function toErrorBody(
  exception: unknown,
  request: { id: string; method: string; url: string },
): {
  status: number;
  body: ErrorBody;
} {
  if (exception instanceof ApiError) {
    const body = exception.getResponse() as ErrorBody;
    return { status: exception.getStatus(), body: withRequestId(body, exception.getStatus(), request.id) };
  }
  if (exception instanceof QuoteError) {
    const status = ERROR_CODES[exception.errorCode].status;
    // INVALID_INPUT keeps its one shape, `[{field, problems}]`, whichever layer found the problem.
    const data = exception.errorData;
    const errorData =
      exception.errorCode === 'INVALID_INPUT' && typeof data?.field === 'string'
        ? [{ field: data.field, problems: [exception.message] }]
        : data;
    return {
      status,
      body: withRequestId(
        {
          message: exception.message,
          errorCode: exception.errorCode,
          ...(errorData === undefined ? {} : { errorData }),
          ...exception.bodyFields,
        },
        status,
        request.id,
      ),
    };
  }
  // Nest hands Fastify's own errors (body parsing, limits) over as HttpExceptions with the original as cause.
  const fastifyCode =
    (exception as { code?: string })?.code ??
    ((exception as { cause?: { code?: string } })?.cause?.code as string | undefined);
  const fromFastify = fastifyCode ? FASTIFY_ERRORS[fastifyCode] : undefined;
  if (fromFastify) {
    const own = fastifyCode === 'FERRY_INPUT_TOO_COMPLEX' ? messageOf(exception) : undefined;
    return {
      status: ERROR_CODES[fromFastify[0]].status,
      body: { message: own ?? fromFastify[1], errorCode: fromFastify[0] },
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return { status, body: routeNotFoundBody(request.method, request.url) };
    const code = codeForStatus(status);
    const response = exception.getResponse();
    const message =
      typeof response === 'string'
        ? response
        : ((response as { message?: unknown }).message ?? exception.message);
    return {
      status,
      body: withRequestId(
        { message: Array.isArray(message) ? message.join('; ') : String(message), errorCode: code },
        status,
        request.id,
      ),
    };
  }
  const status = (exception as { statusCode?: number })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, body: { message: (exception as Error).message, errorCode: codeForStatus(status) } };
  }
  if (isDatabaseUnavailable(exception)) {
    return {
      status: 503,
      body: {
        message: 'The database is unavailable; retry shortly',
        errorCode: 'SERVICE_UNAVAILABLE',
        requestId: request.id,
      },
    };
  }
  return {
    status: 500,
    body: { message: 'Internal error', errorCode: 'INTERNAL_ERROR', requestId: request.id },
  };
}

/** The message of the error, or of the error it wraps (Nest wraps Fastify's errors as HttpExceptions). */
function messageOf(exception: unknown): string | undefined {
  const cause = (exception as { cause?: { message?: string } })?.cause;
  return cause?.message ?? (exception as Error)?.message;
}

/** Fastify's own errors (and Ferry's JSON parser's), by code: the errorCode and message they answer with. */
const FASTIFY_ERRORS: Record<string, [ErrorCode, string]> = {
  FERRY_INPUT_TOO_COMPLEX: [
    'INPUT_TOO_COMPLEX',
    'The request body is too deeply nested or too large to take',
  ],
  FST_ERR_BAD_URL: ['MALFORMED_URL', 'The URL is malformed (a bad percent escape?)'],
  FST_ERR_MAX_PARAM_LENGTH: ['URI_TOO_LONG', 'A path parameter is too long'],
  FST_ERR_CTP_EMPTY_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json'],
  FST_ERR_CTP_INVALID_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['MALFORMED_JSON', 'The request body is not valid JSON'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['MALFORMED_JSON', 'The request body is empty but declared as JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 'The request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['INVALID_INPUT', 'The Content-Length header does not match the body'],
};

function codeForStatus(status: number): ErrorCode {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    400: 'INVALID_INPUT',
    401: 'UNAUTHORIZED',
    403: 'FORBIDDEN',
    404: 'NOT_FOUND',
    409: 'CONFLICT',
    413: 'PAYLOAD_TOO_LARGE',
    415: 'UNSUPPORTED_MEDIA_TYPE',
    429: 'RATE_LIMITED',
    503: 'SERVICE_UNAVAILABLE',
  };
  return byStatus[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_INPUT');
}

function withRequestId(body: ErrorBody, status: number, requestId: string): ErrorBody {
  return status >= 500 ? { ...body, requestId } : body;
}

function describe(exception: unknown): { message: string; stack?: string } {
  return exception instanceof Error
    ? { message: exception.message, stack: exception.stack }
    : { message: String(exception) };
}
