import { FILTER_FIELDS, type Match, MAX_LIMIT, RANGE_FIELDS, SORTS } from './requests-v3.fields.js';
import type { FieldCondition } from './requests-v3.filters.js';
import type { HistoryFilter, RequestsV3Query } from './requests-v3.query.js';

/** The read model: a view over the live generation of the `requests-v3` projection. */
export const REQUESTS_V3_VIEW = 'requests_v3';

/** A statement and its parameters. Every value the caller sent is a parameter; identifiers come from our tables. */
export interface CompiledSql {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** Collects parameters and hands back their typed placeholders (`$3::text[]`). */
export class SqlParams {
  readonly values: unknown[] = [];

  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

function matchSql(match: Match, values: readonly string[], params: SqlParams): string {
  switch (match.type) {
    case 'column':
      return values.length === 1
        ? `${match.column} = ${params.add(values[0], match.cast)}`
        : `${match.column} = ANY(${params.add(values, `${match.cast}[]`)})`;
    case 'term':
      return matchingIds(`search_terms && ${params.add(values, 'text[]')}`);
    case 'hashes': {
      // search_terms holds every hash and has the GIN index; the kind's own column then decides.
      const list = params.add(values, 'text[]');
      return matchingIds(`search_terms && ${list} AND ${match.column} && ${list}`);
    }
    case 'eitherChain': {
      const list = params.add(values, 'bigint[]');
      return `(origin_chain_id = ANY(${list}) OR destination_chain_id = ANY(${list}))`;
    }
  }
}

/**
 * Identity lookups through the GIN index on `search_terms`, run first as an InitPlan. PostgreSQL has no element
 * statistics for an array of distinct values and guesses that 0.5% of rows match, so written as a plain predicate it
 * walks the sort index looking for a page of matches (1.4 s on 1,000,000 rows for a one-row answer); as
 * `id = ANY(ARRAY(…))` it fetches the few matching ids first and sorts them (under 1 ms), and still composes with
 * OR groups and `not:`.
 */
function matchingIds(predicate: string): string {
  return `id = ANY(ARRAY(SELECT id FROM ${REQUESTS_V3_VIEW} WHERE listed AND ${predicate}))`;
}

function absentSql(match: Match): string {
  if (match.type === 'column') return `${match.column} IS NULL`;
  if (match.type === 'hashes') return `cardinality(${match.column}) = 0`;
  throw new Error(`${match.type} fields are never absent`);
}

/** One field test. A negation is `IS NOT TRUE`, so that rows where the field is NULL count as "not equal". */
export function conditionSql(condition: FieldCondition, params: SqlParams): string {
  const { match } = FILTER_FIELDS[condition.key];
  const present = condition.values.filter((value): value is string => value !== null);
  const parts: string[] = [];
  if (present.length > 0) parts.push(matchSql(match, present, params));
  if (present.length < condition.values.length) parts.push(absentSql(match));
  const sql = parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
  return condition.negated ? `(${sql}) IS NOT TRUE` : sql;
}

/** The WHERE clause: listed requests only, then every top-level condition, one of the groups, ranges, features. */
export function whereSql(filter: HistoryFilter, params: SqlParams): string {
  const parts = ['listed', ...filter.conditions.map((condition) => conditionSql(condition, params))];
  if (filter.groups.length > 0) {
    const groups = filter.groups.map(
      (group) => `(${group.map((condition) => conditionSql(condition, params)).join(' AND ')})`,
    );
    parts.push(groups.length === 1 ? groups[0] : `(${groups.join(' OR ')})`);
  }
  for (const { key, value } of filter.ranges) {
    const range = RANGE_FIELDS[key];
    parts.push(`${range.column} ${range.op} ${params.add(value, range.cast)}`);
  }
  if (filter.features.length > 0) parts.push(`features @> ${params.add(filter.features, 'text[]')}`);
  return parts.join(' AND ');
}

/** The sort column printed exactly (microseconds, UTC; or the numeric's own text): what a continuation carries. */
function sortValueSql(sortBy: RequestsV3Query['sortBy']): string {
  const { column, cast } = SORTS[sortBy];
  return cast === 'timestamptz'
    ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : `${column}::text`;
}

/**
 * One page: keyset pagination on `(sort column, id)` in one direction, so each page is an index range scan and
 * never an OFFSET. Asks for `limit + 1` rows to know whether another page follows. The LIMIT is written into the
 * text (a validated integer, 2 to 51): as a parameter, PostgreSQL's generic plan would assume a tenth of the table
 * and the prepared statement (one per shape, see the repository) would be planned anew on every execution.
 */
export function listSql(query: RequestsV3Query): CompiledSql {
  const params = new SqlParams();
  const { column, cast } = SORTS[query.sortBy];
  const direction = query.sortDirection === 'desc' ? 'DESC' : 'ASC';
  let where = whereSql(query.filter, params);
  if (query.after) {
    const comparison = query.sortDirection === 'desc' ? '<' : '>';
    where += ` AND (${column}, id) ${comparison} (${params.add(query.after.value, cast)}, ${params.add(query.after.id, 'text')})`;
  }
  const text = `SELECT id, (state->'v3')::text AS record, state->'$currencies' AS currencies, api_key_id, state->>'referrer' AS referrer,
         ${sortValueSql(query.sortBy)} AS sort_value
    FROM ${REQUESTS_V3_VIEW}
   WHERE ${where}
   ORDER BY ${column} ${direction}, id ${direction}
   LIMIT ${pageRows(query.limit)}`;
  return { text, params: params.values };
}

/** `limit + 1` rows, checked to be a small integer since it is written into the statement's text. */
function pageRows(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new Error(`Invalid page size ${limit}`);
  return limit + 1;
}

/** How many requests match the filter (all pages). */
export function countSql(query: RequestsV3Query): CompiledSql {
  const params = new SqlParams();
  const where = whereSql(query.filter, params);
  return { text: `SELECT count(*) AS total FROM ${REQUESTS_V3_VIEW} WHERE ${where}`, params: params.values };
}
