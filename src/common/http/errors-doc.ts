import { ERROR_CODES } from './error-codes.js';

/** `docs/errors.md`, rendered from the error-code registry so the two cannot drift apart. */
export function renderErrorsDoc(): string {
  const rows = Object.entries(ERROR_CODES).map(
    ([code, { status, description }]) => `| \`${code}\` | ${status} | ${description} |`,
  );
  return [
    '# Error codes',
    '',
    'Every 4xx and 5xx answer of the API has the body `{message, errorCode, ...}`: `message` is for people,',
    '`errorCode` is one of the codes below and is stable for programs. Depending on the code the body also carries',
    '`errorData` (for `INVALID_INPUT`: `[{field, problems}]`, one entry per invalid field, nested fields by path such',
    'as `appFees[0].recipient`) and `requestId` (on 5xx, the id in the `x-request-id` response header and the logs).',
    '',
    'Bad input never yields a 500, never appends an event and never changes a read model. Unknown query and body',
    'parameters are ignored (clients add their own); the parameters the spec defines are validated strictly.',
    '',
    'This file is generated from `src/common/http/error-codes.ts` by `npm run openapi`; a test fails when it is stale.',
    '',
    '| errorCode | HTTP status | When |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
