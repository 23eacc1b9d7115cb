/**
 * Every `errorCode` Ferry answers with, its HTTP status and when it happens. `docs/errors.md` is generated from
 * this table (`npm run openapi`), and a test fails when the two disagree.
 */
export const ERROR_CODES = {
  INVALID_INPUT: {
    status: 400,
    description:
      'A parameter or body field is missing, malformed or out of range; `errorData` lists each problem.',
  },
  MALFORMED_JSON: { status: 400, description: 'The request body is not valid JSON.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The request body is not `application/json`.' },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    description:
      'The request body is larger than the configured limit (`http.bodyLimitBytes`, 1 MiB by default).',
  },
  ROUTE_NOT_FOUND: { status: 404, description: 'No route has this method and path.' },
  NOT_FOUND: { status: 404, description: 'The route exists but the resource it names does not.' },
  UNAUTHORIZED: { status: 401, description: 'The route needs a valid `x-api-key` header.' },
  FORBIDDEN: { status: 403, description: 'The credentials are valid but may not do this.' },
  CONFLICT: { status: 409, description: 'The request conflicts with the current state; reload and retry.' },
  RATE_LIMITED: {
    status: 429,
    description: 'Too many requests for this key or route; retry after the `Retry-After` header.',
  },
  ENDPOINT_RETIRED: {
    status: 410,
    description:
      'The endpoint was retired on its announced `Sunset` date (`GET /requests/v2` on 2026-11-24); the body names its `successor`.',
  },
  INTERNAL_ERROR: {
    status: 500,
    description: 'An unexpected error; the response carries `requestId` for the logs.',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    description: 'A dependency (database, event store) is unavailable; retry later.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
