import { normalizeHex } from '../../projections/requests-v3/requests-v3.columns.js';
import type { FieldProblem } from '../common/http/validation.pipe.js';
import {
  API_KEY_ID,
  CHAIN_ID,
  FILTER_FIELDS,
  FILTERABLE_STATUSES,
  type FilterField,
  type FilterKey,
  isFilterKey,
  REQUEST_TYPES,
  TEXT_VALUE,
  TOP_LEVEL_ONLY,
} from './requests-v3.fields.js';

/** One field test: the field matches one of `values` (`null` = is absent), or, when `negated`, none of them. */
export interface FieldCondition {
  readonly key: FilterKey;
  readonly negated: boolean;
  readonly values: readonly (string | null)[];
}

/** The conditions of one `filters` group, AND-ed. */
export type FilterGroup = readonly FieldCondition[];

export const MAX_GROUPS = 20;
export const MAX_FIELDS_PER_GROUP = 30;
export const MAX_VALUES_PER_FIELD = 50;
const NOT = 'not:';

type Read = { readonly value: string } | { readonly problem: string };

/** Checks one value of a field and brings it to the form the `requests_v3` columns hold. */
export function readFieldValue(field: FilterField, raw: unknown): Read {
  switch (field.kind) {
    case 'chain':
      if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw > 0) return { value: String(raw) };
      return typeof raw === 'string' && CHAIN_ID.test(raw)
        ? { value: raw }
        : { problem: 'must be a positive integer chain id' };
    case 'status':
      return oneOf(raw, FILTERABLE_STATUSES);
    case 'requestType':
      return oneOf(raw, REQUEST_TYPES);
    case 'apiKey':
      return typeof raw === 'string' && API_KEY_ID.test(raw)
        ? { value: raw.toLowerCase() }
        : { problem: 'must be an API key id (UUID)' };
    default:
      if (typeof raw !== 'string' || !TEXT_VALUE.test(raw)) {
        return { problem: 'must be a string of 1 to 256 characters without control characters' };
      }
      return {
        value: field.kind === 'hex' ? normalizeHex(raw) : field.kind === 'symbol' ? raw.toLowerCase() : raw,
      };
  }
}

function oneOf(raw: unknown, allowed: readonly string[]): Read {
  return typeof raw === 'string' && allowed.includes(raw)
    ? { value: raw }
    : { problem: `must be one of: ${allowed.join(', ')}` };
}

/** A key as it may be echoed back in an error: JSON keys are arbitrary text. */
const shown = (key: string): string => (key.length > 64 ? `${key.slice(0, 64)}…` : key);

/**
 * Parses the `filters` parameter: a JSON array of groups, each an object of `key: value`. Within a group fields are
 * AND-ed and groups are OR-ed; `not:<key>` negates; an array value is OR within the field; `null` tests absence.
 * Only the identity, address, chain, currency and status-style keys of FILTER_FIELDS are allowed; ranges and
 * `features` are top-level only. Every problem is reported (field path + reason), nothing reaches SQL but values.
 */
export function parseFilters(text: string): { groups: FilterGroup[]; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const problem = (field: string, reason: string) => problems.push({ field, problems: [reason] });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    problem('filters', 'must be valid JSON: an array of groups such as [{"status":"success"}]');
    return { groups: [], problems };
  }
  if (!Array.isArray(parsed)) {
    problem('filters', 'must be a JSON array of groups such as [{"status":"success"}]');
    return { groups: [], problems };
  }
  if (parsed.length > MAX_GROUPS) {
    problem('filters', `must have at most ${MAX_GROUPS} groups`);
    return { groups: [], problems };
  }
  const groups = parsed.map((group: unknown, index): FilterGroup => {
    const path = `filters[${index}]`;
    if (typeof group !== 'object' || group === null || Array.isArray(group)) {
      problem(path, 'must be an object of field: value');
      return [];
    }
    const entries = Object.entries(group);
    if (entries.length === 0) problem(path, 'must name at least one field');
    if (entries.length > MAX_FIELDS_PER_GROUP) {
      problem(path, `must name at most ${MAX_FIELDS_PER_GROUP} fields`);
      return [];
    }
    return entries.flatMap(([rawKey, raw]) => {
      const condition = readCondition(rawKey, raw, `${path}.${shown(rawKey)}`, problem);
      return condition ? [condition] : [];
    });
  });
  return { groups, problems };
}

function readCondition(
  rawKey: string,
  raw: unknown,
  path: string,
  problem: (field: string, reason: string) => void,
): FieldCondition | null {
  const negated = rawKey.startsWith(NOT);
  const key = negated ? rawKey.slice(NOT.length) : rawKey;
  if (TOP_LEVEL_ONLY.includes(key)) {
    problem(path, `${key} is a top-level parameter only; it cannot be used in filters groups`);
    return null;
  }
  if (!isFilterKey(key)) {
    problem(path, 'is not a field filters groups can use (identity, address, chain, currency, status-style)');
    return null;
  }
  const field: FilterField = FILTER_FIELDS[key];
  if (Array.isArray(raw) && (raw.length === 0 || raw.length > MAX_VALUES_PER_FIELD)) {
    problem(path, `must be a value or an array of 1 to ${MAX_VALUES_PER_FIELD} values`);
    return null;
  }
  const values: (string | null)[] = [];
  const reasons = new Set<string>();
  for (const item of Array.isArray(raw) ? raw : [raw]) {
    if (item === null) {
      if (field.nullable) values.push(null);
      else reasons.add(`cannot be null: ${key} is always set`);
      continue;
    }
    const read = readFieldValue(field, item);
    if ('problem' in read) reasons.add(read.problem);
    else values.push(read.value);
  }
  if (reasons.size > 0) {
    problem(path, [...reasons].join('; '));
    return null;
  }
  return { key, negated, values: [...new Set(values)] };
}
