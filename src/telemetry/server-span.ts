import type { IncomingRequest, SpanAttributes } from './tracing.js';

/** HTTP methods OpenTelemetry names as they are; any other is `_OTHER` (its semantic conventions for HTTP spans). */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'TRACE',
]);

const methodOf = (request: IncomingRequest): string =>
  KNOWN_METHODS.has(request.method) ? request.method : '_OTHER';

/** `POST /quote/v2`: the method and the route's template; the method alone when no route matched (a 404). */
export function serverSpanName(request: IncomingRequest): string {
  const method = methodOf(request);
  return request.route === undefined ? method : `${method} ${request.route}`;
}

/**
 * The server span's attributes at its start, by OpenTelemetry's stable HTTP conventions. The query is masked as log
 * lines are (`mask`); headers other than the user agent are not recorded (API keys and the admin token travel there).
 */
export function serverSpanAttributes(
  request: IncomingRequest,
  mask: (text: string) => string,
): SpanAttributes {
  const queryAt = request.url.indexOf('?');
  const userAgent = request.headers['user-agent'];
  return {
    'http.request.method': methodOf(request),
    ...(methodOf(request) === request.method ? {} : { 'http.request.method_original': request.method }),
    'url.scheme': request.scheme,
    'url.path': queryAt === -1 ? request.url : request.url.slice(0, queryAt),
    ...(queryAt === -1 ? {} : { 'url.query': mask(request.url.slice(queryAt + 1)) }),
    ...(request.route === undefined ? {} : { 'http.route': request.route }),
    'network.protocol.version': request.httpVersion,
    ...(request.clientAddress === undefined ? {} : { 'client.address': request.clientAddress }),
    ...(typeof userAgent === 'string' ? { 'user_agent.original': userAgent } : {}),
    'ferry.x_request_id': request.requestId,
  };
}
