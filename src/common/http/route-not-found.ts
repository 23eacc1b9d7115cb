import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody } from './api-error.js';

/** The spec's body for a path no route serves (the query string is not echoed). */
export function routeNotFoundBody(method: string, url: string): ErrorBody {
  return { message: `No route ${method} ${url.split('?')[0]}`, errorCode: 'ROUTE_NOT_FOUND' };
}

/**
 * Answers an unknown route directly from Fastify's not-found handler. Nest's own handler throws a NotFoundException
 * for the exception filter to map, and capturing that exception's stack was the largest single cost of a 404 in the
 * profile (bench/RESULTS.md, HTTP floor); the answer is the filter's, byte for byte (http-conventions e2e).
 */
export function answerRouteNotFound(request: FastifyRequest, reply: FastifyReply): void {
  void reply
    .code(404)
    .header('content-type', 'application/json; charset=utf-8')
    .send({ ...routeNotFoundBody(request.method, request.url), statusCode: 404 });
}
