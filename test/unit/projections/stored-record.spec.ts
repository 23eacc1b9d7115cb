import type { RequestRecordState } from '../../../projections/requests/request-record-state.js';
import {
  compactRecordState,
  CURRENCIES_KEY,
  expandRecordState,
  expandV3Record,
  sameJson,
  storedRecordJson,
} from '../../../projections/requests/stored-record.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { recordAfter } from '../../support/request-events.js';
import { scenario } from '../status/request-scenarios.js';

const N = 7;
const quote = sampleQuote(N, { appFeeBps: 50, referrer: 'wallet.example' });
const paths = scenario(quote, N);
const recordOf = (commands: RequestCommand[]) => recordAfter(commands, `request-${quote.requestId}`);
/** What the database hands back: JSON, without the JavaScript objects' identity. */
const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const records: [string, RequestRecordState][] = [
  ['quoted', recordOf([paths.recordQuote])],
  ['filled', recordOf(paths.success)],
  ['refunded', recordOf(paths.refunded)],
];

describe(compactRecordState.name, () => {
  it.each(records)('stores a %s record with each currency once, and reads it back equal', (_, record) => {
    const stored = roundTrip(compactRecordState(record)) as Record<string, unknown>;
    const currencies = stored[CURRENCIES_KEY] as unknown[];
    expect(currencies.length).toBeLessThanOrEqual(3);
    expect(JSON.stringify(stored).length).toBeLessThan(0.8 * JSON.stringify(record).length);
    expect(JSON.stringify({ ...stored, [CURRENCIES_KEY]: [] })).not.toContain('"decimals"');
    expect(expandRecordState(stored)).toEqual(record);
    // The v3 record alone, as GET /requests/v3 reads it (state->'v3', state->'$currencies'): the same JSON text.
    expect(JSON.stringify(expandV3Record(stored.v3, currencies))).toBe(JSON.stringify(record.v3));
  });

  it('does not change the state it stores', () => {
    const record = records[1][1];
    const copy = roundTrip(record);
    compactRecordState(record);
    expect(record).toEqual(copy);
  });

  it('reads a row stored before currencies were referenced as it is', () => {
    const record = roundTrip(records[1][1]);
    expect(expandRecordState(record)).toEqual(record);
    expect(expandV3Record((record as RequestRecordState).v3, null)).toEqual(
      (record as RequestRecordState).v3,
    );
  });

  it('refuses a reference to a currency the row lacks', () => {
    const stored = roundTrip(compactRecordState(records[1][1])) as Record<string, unknown>;
    expect(() => expandRecordState({ ...stored, [CURRENCIES_KEY]: [{}] })).toThrow('lacks');
  });
});

describe(storedRecordJson.name, () => {
  it.each(records)('writes a %s record as the text of its compacted copy', (_, record) => {
    expect(storedRecordJson(record)).toBe(JSON.stringify(compactRecordState(record)));
    const parsed = roundTrip(record) as RequestRecordState;
    expect(storedRecordJson(parsed)).toBe(JSON.stringify(compactRecordState(parsed)));
  });

  it('leaves the state as it was, objects shared within it included', () => {
    const record = roundTrip(records[1][1]) as RequestRecordState & Record<string, unknown>;
    // One Amount object in two places, one Currency object in several: each swapped once, each put back.
    const amount = { amount: '1', currency: record.currencyIn, amountUsd: '1' };
    const sut = { ...record, extra: { first: amount, second: [amount, { currencyOut: record.currencyIn }] } };
    const before = JSON.stringify(sut);
    expect(storedRecordJson(sut)).toBe(JSON.stringify(compactRecordState(sut)));
    expect(JSON.stringify(sut)).toBe(before);
    expect(sut.extra.first.currency).toBe(record.currencyIn);
  });

  it('puts every currency back when serialisation throws', () => {
    const record = roundTrip(records[1][1]) as RequestRecordState & Record<string, unknown>;
    const before = JSON.stringify(record);
    const sut = { ...record, broken: 1n };
    expect(() => storedRecordJson(sut)).toThrow(TypeError);
    expect(JSON.stringify({ ...sut, broken: undefined })).toBe(before);
  });
});

describe(sameJson.name, () => {
  const currency = roundTrip(records[1][1].currencyIn) as Record<string, unknown>;

  it.each([
    ['equal copies', currency, roundTrip(currency)],
    ['the same object', currency, currency],
    ['equal arrays', [1, 'a', null], [1, 'a', null]],
  ])('recognises %s', (_, a, b) => {
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(sameJson(a, b)).toBe(true);
  });

  it.each([
    [
      'another value inside',
      currency,
      { ...currency, metadata: { ...(currency.metadata as object), verified: 0 } },
    ],
    ['the same keys in another order', { a: 1, b: 2 }, { b: 2, a: 1 }],
    ['a key more', currency, { ...currency, extra: 1 }],
    ['an array and an object', [1], { 0: 1 }],
    ['a number and its text', { a: 1 }, { a: '1' }],
    ['objects that print themselves', new Date(0), new Date(1)],
  ])('tells apart %s', (_, a, b) => {
    expect(JSON.stringify(a)).not.toBe(JSON.stringify(b));
    expect(sameJson(a, b)).toBe(false);
  });

  it('may say no to values that print alike, never yes to ones that do not', () => {
    expect(sameJson({ a: undefined, b: 1 }, { b: 1 })).toBe(false);
    expect(sameJson([Number.NaN], [Number.NaN])).toBe(false);
  });
});

describe(`${storedRecordJson.name} with equal currencies that are not the same object`, () => {
  it('refers to one currency for all of them, as the compacted copy does', () => {
    const record = roundTrip(records[1][1]) as RequestRecordState;
    const sut = { ...record, currencyOut: roundTrip(record.currencyIn) } as RequestRecordState;
    const text = storedRecordJson(sut);
    expect(text).toBe(JSON.stringify(compactRecordState(sut)));
    expect((JSON.parse(text) as Record<string, unknown[]>)[CURRENCIES_KEY]).toHaveLength(
      (compactRecordState(sut) as Record<string, unknown[]>)[CURRENCIES_KEY].length,
    );
  });
});
