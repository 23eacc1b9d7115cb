import { ApiError } from '../common/http/api-error.js';
import type { FieldProblem } from '../common/http/validation.pipe.js';
import { decodeContinuation, type KeysetPosition, queryDigest } from './continuation.js';
import {
  DEFAULT_LIMIT,
  FILTER_FIELDS,
  FILTER_KEYS,
  RANGE_FIELDS,
  RANGE_KEYS,
  RANGE_PAIRS,
  type RangeKey,
  SORTS,
  type SortBy,
  type SortDirection,
} from './requests-v3.fields.js';
import {
  type FieldCondition,
  type FilterGroup,
  parseFilters,
  readFieldValue,
} from './requests-v3.filters.js';
import type { RequestsV3QueryDto } from './requests-v3.query.dto.js';

/** A range bound with its SQL parameter (timestamps as ISO 8601, the rest as decimal strings). */
export interface RangeCondition {
  readonly key: RangeKey;
  readonly value: string;
}

/** Which rows match: every top-level condition, any one group (when there are groups), the ranges and features. */
export interface HistoryFilter {
  readonly conditions: readonly FieldCondition[];
  readonly groups: readonly FilterGroup[];
  readonly ranges: readonly RangeCondition[];
  readonly features: readonly string[];
}

/** A `GET /requests/v3` query, validated and normalised: what the SQL is compiled from. */
export interface RequestsV3Query {
  readonly filter: HistoryFilter;
  readonly sortBy: SortBy;
  readonly sortDirection: SortDirection;
  readonly limit: number;
  /** The page starts after this row (from `continuation`). */
  readonly after: KeysetPosition | null;
  /** Digest of filter + sort; a continuation carries it. */
  readonly digest: string;
  readonly includeTotal: boolean;
  /** The caller's key id when `includeAuthenticatedData=true` (its own requests get `data.referrer`), else null. */
  readonly authenticatedFor: string | null;
}

/**
 * Pure: turns the validated DTO into a RequestsV3Query for the caller's key. Throws ApiError INVALID_INPUT listing
 * every problem (malformed `filters`, empty ranges, a foreign continuation), and FORBIDDEN when `apiKey` names a key
 * other than the caller's.
 */
export function parseRequestsV3Query(dto: RequestsV3QueryDto, callerApiKeyId: string): RequestsV3Query {
  const problems: FieldProblem[] = [];
  const conditions = FILTER_KEYS.flatMap((key): FieldCondition[] => {
    const raw = dto[key];
    if (raw === undefined) return [];
    const read = readFieldValue(FILTER_FIELDS[key], raw);
    if ('problem' in read) {
      problems.push({ field: key, problems: [read.problem] });
      return [];
    }
    return [{ key, negated: false, values: [read.value] }];
  });
  const parsed = dto.filters === undefined ? { groups: [], problems: [] } : parseFilters(dto.filters);
  problems.push(...parsed.problems, ...rangeProblems(dto));
  if (problems.length > 0) {
    const summary = problems.map((p) => `${p.field}: ${p.problems.join(', ')}`).join('; ');
    throw new ApiError('INVALID_INPUT', `Invalid input: ${summary}`, problems);
  }

  const apiKeyIds = [conditions, ...parsed.groups]
    .flat()
    .filter((condition) => condition.key === 'apiKey')
    .flatMap((condition) => condition.values);
  if (apiKeyIds.some((id) => id !== null && id !== callerApiKeyId.toLowerCase())) {
    throw new ApiError('FORBIDDEN', 'apiKey may only name the API key this request is made with (its id)');
  }

  const filter: HistoryFilter = {
    conditions,
    groups: parsed.groups,
    ranges: RANGE_KEYS.flatMap((key) => {
      const raw = dto[key];
      return raw === undefined ? [] : [{ key, value: rangeParameter(key, raw) }];
    }),
    features: [...new Set(dto.features ?? [])].sort(),
  };
  const sortBy = (dto.sortBy ?? 'createdAt') as SortBy;
  const sortDirection = (dto.sortDirection ?? SORTS[sortBy].defaultDirection) as SortDirection;
  const digest = queryDigest({ filter, sortBy, sortDirection });
  return {
    filter,
    sortBy,
    sortDirection,
    limit: dto.limit ?? DEFAULT_LIMIT,
    after: dto.continuation === undefined ? null : decodeContinuation(dto.continuation, digest, sortBy),
    digest,
    includeTotal: dto.includeTotal === 'true',
    authenticatedFor: dto.includeAuthenticatedData === 'true' ? callerApiKeyId : null,
  };
}

/** `endTimestamp` is inclusive to the whole second: created before the next second starts. */
function rangeParameter(key: RangeKey, raw: string): string {
  if (RANGE_FIELDS[key].cast !== 'timestamptz') return raw;
  const seconds = Number(raw) + (key === 'endTimestamp' ? 1 : 0);
  return new Date(seconds * 1000).toISOString();
}

function rangeProblems(dto: RequestsV3QueryDto): FieldProblem[] {
  return RANGE_PAIRS.flatMap(([min, max]) => {
    const low = dto[min];
    const high = dto[max];
    return low !== undefined && high !== undefined && compareDecimals(low, high) > 0
      ? [{ field: max, problems: [`${max} must not be less than ${min}`] }]
      : [];
  });
}

/** Compares two non-negative decimal strings exactly. */
export function compareDecimals(a: string, b: string): number {
  const [aWhole, aFraction = ''] = a.split('.');
  const [bWhole, bFraction = ''] = b.split('.');
  const scale = Math.max(aFraction.length, bFraction.length);
  const x = BigInt(aWhole + aFraction.padEnd(scale, '0'));
  const y = BigInt(bWhole + bFraction.padEnd(scale, '0'));
  return x === y ? 0 : x < y ? -1 : 1;
}
