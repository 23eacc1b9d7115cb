import { createHash } from 'node:crypto';
import { ApiError } from '../common/http/api-error.js';
import { SORTS, type SortBy, TEXT_VALUE } from './requests-v3.fields.js';

/** Where a page ended: the last row's sort value (as PostgreSQL printed it) and its id. */
export interface KeysetPosition {
  readonly value: string;
  readonly id: string;
}

const VERSION = 1;
/** The sort values a cursor may carry, by the sort column's type (see `sortKeySql`). */
const SORT_VALUE: Record<(typeof SORTS)[SortBy]['cast'], RegExp> = {
  timestamptz: /^[0-9]{4,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$/,
  numeric: /^-?[0-9]{1,60}(\.[0-9]{1,60})?$/,
};

/**
 * A digest of everything that decides which rows match and in which order (filters and sort, normalised; not the
 * page size). A continuation carries it, so it cannot be replayed against a different query.
 */
export function queryDigest(canonicalQuery: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonicalQuery)).digest('base64url').slice(0, 22);
}

/** The opaque `continuation`: base64url of `{v, q: query digest, k: sort value, i: id}`. */
export function encodeContinuation(position: KeysetPosition, digest: string): string {
  return Buffer.from(JSON.stringify({ v: VERSION, q: digest, k: position.value, i: position.id })).toString(
    'base64url',
  );
}

const invalid = (problem: string): ApiError =>
  new ApiError('INVALID_INPUT', `Invalid input: continuation: ${problem}`, [
    { field: 'continuation', problems: [problem] },
  ]);

/**
 * Reads a continuation back for the query with `digest` sorted by `sortBy`. Anything this API did not issue for the
 * same query (malformed, tampered, or from other filters or another sort) is 400 INVALID_INPUT; its values only ever
 * reach SQL as parameters.
 */
export function decodeContinuation(token: string, digest: string, sortBy: SortBy): KeysetPosition {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('is not a continuation this API issued');
  }
  const { v, q, k, i } = (payload ?? {}) as Record<string, unknown>;
  if (
    typeof payload !== 'object' ||
    v !== VERSION ||
    typeof q !== 'string' ||
    typeof k !== 'string' ||
    typeof i !== 'string' ||
    !SORT_VALUE[SORTS[sortBy].cast].test(k) ||
    !TEXT_VALUE.test(i)
  ) {
    throw invalid('is not a continuation this API issued');
  }
  if (q !== digest) {
    throw invalid('was issued for different filters or another sort; start again without it');
  }
  return { value: k, id: i };
}
