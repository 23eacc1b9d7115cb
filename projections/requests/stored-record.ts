import type { StateCodec } from '../projection.js';
import type { RequestRecordState, RequestV3 } from './request-record-state.js';

/** Keys under which a request record holds a Currency object (every Amount's `currency`, the record's own). */
const CURRENCY_KEYS: ReadonlySet<string> = new Set(['currency', 'currencyIn', 'currencyOut']);
/** Where the stored form keeps the record's distinct currencies. */
export const CURRENCIES_KEY = '$currencies';
/** A reference to one of them, in place of the object: `{"$c": index}`. */
const REF_KEY = '$c';

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The stored form of a request record: each Currency object (a dozen per record, in every Amount, about a third of
 * its JSON, two or three distinct) is replaced by `{"$c": i}`, an index into the record's `$currencies`. The database
 * parses, compresses and writes about a third less JSON per row (bench/RESULTS.md, "Requests"). Pure; the state is
 * not changed.
 */
export function compactRecordState(state: RequestRecordState): Json {
  const currencies: Json[] = [];
  const indexOf = new Map<string, number>();
  const compact = (value: Json, key: string): Json => {
    if (Array.isArray(value)) return value.map((item) => compact(item, key));
    if (!isObject(value)) return value;
    if (CURRENCY_KEYS.has(key)) {
      const text = JSON.stringify(value);
      let index = indexOf.get(text);
      if (index === undefined) {
        index = currencies.length;
        currencies.push(value);
        indexOf.set(text, index);
      }
      return { [REF_KEY]: index };
    }
    const copy: Record<string, Json> = {};
    for (const name of Object.keys(value)) copy[name] = compact(value[name], name);
    return copy;
  };
  const stored = compact(state, '') as Record<string, Json>;
  stored[CURRENCIES_KEY] = currencies;
  return stored;
}

/** The references, shared by every stored record: `{"$c": i}` for the i-th distinct currency. */
const refs: Record<string, number>[] = [];
const refOf = (index: number): Record<string, number> => (refs[index] ??= { [REF_KEY]: index });
const isRef = (value: Json): boolean => {
  const index = isObject(value) ? value[REF_KEY] : undefined;
  return typeof index === 'number' && refs[index] === value;
};

const isPlain = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null || Array.isArray(value);
};

/**
 * Whether `JSON.stringify` prints `a` and `b` the same, answered by comparing them: plain objects and arrays key by
 * key in order, anything else only when identical. Several times cheaper than printing both; "no" may be wrong for
 * values that print alike without being equal (NaN), never "yes".
 */
export function sameJson(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (!isPlain(a) || !isPlain(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, Json>;
  const right = b as Record<string, Json>;
  const keys = Object.keys(left);
  const others = Object.keys(right);
  if (keys.length !== others.length) return false;
  for (let i = 0; i < keys.length; i += 1) {
    if (keys[i] !== others[i] || !sameJson(left[keys[i]], right[keys[i]])) return false;
  }
  return true;
}

/**
 * `JSON.stringify(compactRecordState(state))`, the same text, at half the cost: instead of a deep copy of the record
 * with references in place of currencies (a few hundred objects per row, most of a rebuild's garbage), each Currency
 * object is swapped for its reference in place, the record serialised, and every swap undone before this returns,
 * so the state is as it was (even when serialisation throws). Nothing else runs meanwhile: it is synchronous.
 */
export function storedRecordJson(state: RequestRecordState): string {
  const texts: string[] = [];
  /** The first currency object of each text: a record's dozen copies of two or three are recognised by it. */
  const firsts: Json[] = [];
  const indexOfText = new Map<string, number>();
  const indexOfObject = new Map<Json, number>();
  const undo: [Record<string, Json> | Json[], string | number, Json][] = [];
  const reference = (currency: Json): Record<string, number> => {
    let index = indexOfObject.get(currency);
    if (index === undefined) {
      index = firsts.findIndex((first) => sameJson(first, currency));
      if (index < 0) {
        const text = JSON.stringify(currency);
        index = indexOfText.get(text);
        if (index === undefined) {
          index = texts.length;
          texts.push(text);
          firsts.push(currency);
          indexOfText.set(text, index);
        }
      }
      indexOfObject.set(currency, index);
    }
    return refOf(index);
  };
  // As `compact` walks: an object under a currency key (or in an array under one) is a currency, and not entered.
  const swap = (holder: Record<string, Json> | Json[], slot: string | number, value: Json, key: string) => {
    if (value === null || typeof value !== 'object' || isRef(value)) return;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) swap(value, i, value[i], key);
    } else if (CURRENCY_KEYS.has(key)) {
      undo.push([holder, slot, value]);
      (holder as Record<string | number, Json>)[slot] = reference(value);
    } else {
      const object = value as Record<string, Json>;
      for (const name of Object.keys(object)) swap(object, name, object[name], name);
    }
  };
  const root = state as unknown as Record<string, Json>;
  if (!isObject(root) || CURRENCIES_KEY in root) return JSON.stringify(compactRecordState(state));
  try {
    for (const name of Object.keys(root)) swap(root, name, root[name], name);
    const text = JSON.stringify(root);
    const currencies = `"${CURRENCIES_KEY}":[${texts.join(',')}]`;
    return text === '{}' ? `{${currencies}}` : `${text.slice(0, -1)},${currencies}}`;
  } finally {
    for (let i = undo.length - 1; i >= 0; i -= 1) {
      const [holder, slot, value] = undo[i];
      (holder as Record<string | number, Json>)[slot] = value;
    }
  }
}

/**
 * Puts the currencies back in place of their references in `value` (a stored record or a part of one, e.g.
 * `state->'v3'`), given the stored record's `$currencies`. Each reference is replaced in its own place, so the
 * object's key order, and with it the JSON an answer is serialised to, is exactly what it was before compaction.
 * A value without references (or `currencies` null: a row stored before compaction) comes back as it is. Works in
 * place: `value` is a row just parsed from the database, shared with nothing.
 */
export function expandCurrencies<T>(value: T, currencies: readonly Json[] | null | undefined): T {
  if (!currencies || currencies.length === 0) return value;
  const expand = (item: Json): Json => {
    if (Array.isArray(item)) {
      for (let i = 0; i < item.length; i += 1) item[i] = expand(item[i]);
      return item;
    }
    if (!isObject(item)) return item;
    const ref = item[REF_KEY];
    if (typeof ref === 'number' && Object.keys(item).length === 1) {
      const currency = currencies[ref];
      if (currency === undefined)
        throw new Error(`A stored record refers to currency ${ref}, which it lacks`);
      return currency;
    }
    for (const name of Object.keys(item)) item[name] = expand(item[name]);
    return item;
  };
  return expand(value) as T;
}

/** The record from its stored form (`compactRecordState`); rows stored before compaction come back as they are. */
export function expandRecordState(stored: Json): RequestRecordState {
  if (!isObject(stored) || !Array.isArray(stored[CURRENCIES_KEY])) return stored as RequestRecordState;
  const { [CURRENCIES_KEY]: currencies, ...state } = stored;
  return expandCurrencies(state, currencies as Json[]) as unknown as RequestRecordState;
}

/** A v3 record read as `state->'v3'`, with the row's `state->'$currencies'`. */
export function expandV3Record(record: Json, currencies: Json): RequestV3 {
  return expandCurrencies(record, Array.isArray(currencies) ? currencies : null) as RequestV3;
}

/** How requests-v3 and requests-v2 store the shared fold's state. */
export const requestRecordCodec: StateCodec<RequestRecordState> = {
  encode: compactRecordState,
  serialize: storedRecordJson,
  decode: expandRecordState,
};
