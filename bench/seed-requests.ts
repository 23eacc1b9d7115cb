import type { ColumnType, Projection } from '../projections/projection.js';
import { identifier } from '../projections/runner/projection-table.js';
import type { Database, SqlExecutor } from '../src/database/database.js';
import { eventData, eventTypeOf } from '../src/event-store/domain-event.js';
import { EventRegistry } from '../src/event-store/event-registry.js';
import type { RecordedEvent } from '../src/event-store/event-store.js';
import { PostgresEventStore } from '../src/event-store/postgres/postgres-event-store.js';
import { decide, type RequestCommand } from '../src/requests/domain/request-decide.js';
import { REQUEST_EVENTS, type RequestQuotedData } from '../src/requests/domain/request-events.js';
import {
  evolve,
  initialRequestState,
  type RequestState,
  timeOf,
} from '../src/requests/domain/request-state.js';
import { sampleLifecycle, sampleQuote } from '../src/requests/domain/sample-requests.js';
import { now } from './support.js';

/**
 * Bulk generation of a request history through events, as the app would have stored it, without running a million
 * commands. Each (shape, outcome) pair of request is taken once through `decide`/`evolve` from `sampleQuote` and
 * `sampleLifecycle` (plus failure and refund commands in the same style) for a template request; every value that
 * differs between requests (ids, wallets, hashes, chains, amounts, times, API key) is then swapped for a `format()`
 * placeholder in the stored JSON. One `INSERT … SELECT` per chunk of requests fills `events` (in time order, so
 * streams interleave as they would live) and `event_streams`, substituting each request's values.
 *
 * The same templates also give, for a projection that folds request streams (requests-v3), the row each (shape,
 * outcome) ends as — through the projection's own `evolve` and column functions — so that its table can be filled
 * for the whole history without replaying it (`fillProjectionRows`), after `compareProjectionRows` has checked
 * those rows against what the projection runner wrote for the same requests.
 */

// ---------------------------------------------------------------------------------------------------------------
// What varies between requests

/** The chains requests move between (origin ≠ destination unless same-chain). */
export const BENCH_CHAINS = [1, 10, 137, 8453, 42161, 59144, 534352, 81457] as const;
/** Seconds between consecutive requests' quotes (whole seconds keep the tx timestamps integers). */
const SPACING_SECONDS = 3;
/** The first request's quote time; request n is quoted SPACING_SECONDS × n later. */
export const HISTORY_START = new Date('2026-09-01T00:00:00.000Z');

/** What happens to a request after its quote, with how many in 1,000 take that path. */
export const OUTCOMES = [
  { name: 'success', weight: 700 },
  { name: 'execute-success', weight: 30 },
  { name: 'quote-expired', weight: 100 },
  { name: 'quote-only', weight: 20 },
  { name: 'fill-failed-refund', weight: 40 },
  { name: 'fill-deadline-refund', weight: 20 },
  { name: 'deposit-timeout', weight: 20 },
  { name: 'refund-failed', weight: 10 },
  { name: 'pending', weight: 30 },
  { name: 'submitted', weight: 30 },
] as const;
export type Outcome = (typeof OUTCOMES)[number]['name'];

/** Structural shape of a request: what changes the JSON's layout, not just its values. */
interface Shape {
  readonly sameChain: boolean;
  readonly eth: boolean;
  readonly appFee: boolean;
  readonly depositAddress: boolean;
  /** Paid out to another wallet than the user's (the other wallet is then searchable too). */
  readonly otherRecipient: boolean;
}

const SHAPES: Shape[] = [false, true].flatMap((sameChain) =>
  (sameChain ? [true] : [false, true]).flatMap((eth) =>
    [false, true].flatMap((appFee) =>
      [false, true].flatMap((depositAddress) =>
        [false, true].map((otherRecipient) => ({ sameChain, eth, appFee, depositAddress, otherRecipient })),
      ),
    ),
  ),
);

/** The columns a request row joins its templates on, and the shape they describe. */
const SHAPE_JOIN = `t.same_chain = r.same_chain AND t.eth = r.eth AND t.app_fee = r.has_app_fee
         AND t.deposit_address = r.deposit_address AND t.other_recipient = r.other_recipient AND t.outcome = r.outcome`;

// ---------------------------------------------------------------------------------------------------------------
// The template request: distinctive values, each replaced by a placeholder

/** Template request number: its hex (`fedd…`), its decimal (salt) and `% 1000 = 777` (amounts) are distinctive. */
const T = 267_242_777;
const T_ORIGIN = 990_001;
const T_DESTINATION = 990_002;
const T_QUOTED_AT = '2031-03-03T03:03:03.000Z';
const T_QUOTED_MS = Date.parse(T_QUOTED_AT);
const T_API_KEY = '00000000-0000-4000-8000-00000000beef';
const T_REFERRER = 'template-referrer';
const T_APP_FEE_BPS = 50;

const hex40 = (n: number, salt: string) => `0x${salt}${n.toString(16).padStart(40 - salt.length, '0')}`;
const txHash = (n: number, kind: number) =>
  `0x${kind.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}`;
const at = (seconds: number) => new Date(T_QUOTED_MS + seconds * 1000).toISOString();

/**
 * The per-request values, in `format()` argument order (1-based), with the SQL computing each from the columns of the
 * request row (see `requestRowsSql`). `raw` values are JSON text (null or a string literal) rather than a string's
 * content; `number` values replace a JSON number.
 */
const ARGS = [
  { name: 'requestId', sql: 'r.request_id' },
  { name: 'user', sql: 'r.user_address' },
  { name: 'recipient', sql: `'0xbb' || lpad(to_hex(r.n), 38, '0')` },
  { name: 'depositAddress', sql: `'0xdd' || lpad(to_hex(r.n), 38, '0')` },
  { name: 'salt', sql: 'r.n::text' },
  { name: 'depositTx', sql: `'0x01' || lpad(to_hex(r.n), 62, '0')` },
  { name: 'fillTx', sql: `'0x02' || lpad(to_hex(r.n), 62, '0')` },
  { name: 'refundTx', sql: `'0x03' || lpad(to_hex(r.n), 62, '0')` },
  { name: 'origin', sql: 'r.origin::text' },
  { name: 'destination', sql: 'r.destination::text' },
  { name: 'usdcIn', sql: `'0xc0' || lpad(to_hex(r.origin), 38, '0')` },
  { name: 'usdcOut', sql: `'0xc0' || lpad(to_hex(r.destination), 38, '0')` },
  { name: 'depository', sql: `'0xde' || lpad(to_hex(r.origin), 38, '0')` },
  { name: 'units', sql: 'r.units::text' },
  { name: 'unitsFormatted', sql: 'trim_scale(r.units::numeric / 1000000)::text' },
  { name: 'unitsMinimum', sql: '(r.units * 995 / 1000)::text' },
  { name: 'appFee', sql: 'r.app_fee::text' },
  { name: 'appFeeFormatted', sql: 'trim_scale(r.app_fee::numeric / 1000000)::text' },
  { name: 'outUnits', sql: '(r.units - 20000 - r.app_fee)::text' },
  { name: 'outFormatted', sql: 'trim_scale((r.units - 20000 - r.app_fee)::numeric / 1000000)::text' },
  { name: 'outMinimum', sql: '((r.units - 20000 - r.app_fee) * 995 / 1000)::text' },
  { name: 'apiKeyId', sql: `CASE WHEN r.api_key_id IS NULL THEN 'null' ELSE '"' || r.api_key_id || '"' END` },
  { name: 'referrer', sql: `CASE WHEN r.referrer IS NULL THEN 'null' ELSE '"' || r.referrer || '"' END` },
  { name: 'depositBlock', sql: '(1000 + r.n)::text' },
  { name: 'fillBlock', sql: '(2000 + r.n)::text' },
  { name: 'refundBlock', sql: '(3000 + r.n)::text' },
] as const;
type ArgName = (typeof ARGS)[number]['name'];
const argIndex = (name: ArgName) => ARGS.findIndex((arg) => arg.name === name) + 1;

interface TemplateEvent {
  readonly shape: Shape;
  readonly outcome: Outcome;
  readonly ord: number;
  readonly type: string;
  /** `format()` string of the stored data. */
  readonly dataFormat: string;
  /** `format()` string of the event id, or null for a random UUID (events the app ids with randomUUID()). */
  readonly idFormat: string | null;
  readonly metadata: string;
  /** Seconds after the quote. */
  readonly offsetSeconds: number;
}

function templateQuote(shape: Shape): RequestQuotedData {
  const quote = sampleQuote(T, {
    quotedAt: T_QUOTED_AT,
    apiKeyId: T_API_KEY,
    referrer: T_REFERRER,
    originChainId: T_ORIGIN,
    destinationChainId: shape.sameChain ? T_ORIGIN : T_DESTINATION,
    symbolOut: shape.eth ? 'ETH' : 'USDC',
    withDepositAddress: shape.depositAddress,
    appFeeBps: shape.appFee ? T_APP_FEE_BPS : 0,
  });
  return { ...quote, recipient: shape.otherRecipient ? hex40(T, 'bb') : quote.user };
}

/** The commands of one outcome for the template request (times relative to its quote). */
function templateCommands(quote: RequestQuotedData, outcome: Outcome): RequestCommand[] {
  const [record, detect, confirm, submitFill, fillSuccess] = sampleLifecycle(quote, T);
  const origin = quote.originChainId;
  const refundTx = txHash(T, 3);
  const fillFailed: RequestCommand = {
    type: 'RecordFillFailure',
    data: {
      failReason: 'FILL_REVERTED',
      failedTxHash: txHash(T, 2),
      failedTxBlockNumber: 2000 + T,
      failedCallData: {
        from: hex40(1, '50'),
        to: hex40(2, 'f1'),
        data: '0x5b5e139f0000000000000000000000000000000000000000000000000000000000000001',
        value: '0',
      },
      details: 'execution reverted: output below minimum',
      failedAt: at(20),
    },
  };
  const refund = (submitted: number, landed: number): RequestCommand[] => [
    {
      type: 'SubmitRefund',
      data: {
        chainId: origin,
        txHash: refundTx,
        amount: quote.currencyIn.amount,
        currency: quote.currencyIn.currency.address,
        recipient: quote.user,
        reason: null,
        submittedAt: at(submitted),
      },
    },
    {
      type: 'RecordRefundSuccess',
      data: {
        chainId: origin,
        txHash: refundTx,
        block: 3000 + T,
        timestamp: T_QUOTED_MS / 1000 + landed,
        fee: '21000000000000',
        amount: quote.currencyIn.amount,
        currency: quote.currencyIn.currency.address,
        recipient: quote.user,
        refundedAt: at(landed),
      },
    },
  ];
  switch (outcome) {
    case 'success':
      return [record, detect, confirm, submitFill, fillSuccess];
    case 'execute-success':
      return [
        record,
        {
          type: 'SubmitDeposit',
          data: { via: 'permit', chainId: origin, txHash: txHash(T, 1), submittedAt: at(3) },
        },
        confirm,
        submitFill,
        fillSuccess,
      ];
    case 'quote-expired':
      return [record, { type: 'ExpireRequest', data: { at: quote.quoteExpiresAt } }];
    case 'quote-only':
      return [record];
    case 'fill-failed-refund':
      return [record, detect, confirm, submitFill, fillFailed, ...refund(30, 45)];
    case 'fill-deadline-refund':
      return [
        record,
        detect,
        confirm,
        { type: 'ExpireRequest', data: { at: quote.fillDeadline } },
        ...refund(3610, 3625),
      ];
    case 'deposit-timeout':
      return [record, detect, { type: 'ExpireRequest', data: { at: at(605) } }];
    case 'refund-failed':
      return [
        record,
        detect,
        confirm,
        submitFill,
        fillFailed,
        refund(30, 45)[0],
        {
          type: 'RecordRefundFailure',
          data: { refundFailReason: 'REFUND_REVERTED', failedTxHash: refundTx, failedAt: at(45) },
        },
      ];
    case 'pending':
      return [record, detect, confirm];
    case 'submitted':
      return [record, detect, confirm, submitFill];
  }
}

/** The placeholders: exact string values and exact number values of the template, by argument. */
function templateValues(quote: RequestQuotedData) {
  const units = BigInt(quote.currencyIn.amount);
  const appFee = BigInt(quote.appFees[0]?.amount ?? '0');
  const out = BigInt(quote.currencyOut.amount);
  const strings = new Map<string, ArgName>([
    [quote.requestId, 'requestId'],
    [quote.user, 'user'],
    [hex40(T, 'bb'), 'recipient'],
    [hex40(T, 'dd'), 'depositAddress'],
    [String(T), 'salt'],
    [txHash(T, 1), 'depositTx'],
    [txHash(T, 2), 'fillTx'],
    [txHash(T, 3), 'refundTx'],
    [String(T_ORIGIN), 'origin'],
    [String(T_DESTINATION), 'destination'],
    [hex40(T_ORIGIN, 'c0'), 'usdcIn'],
    [hex40(T_DESTINATION, 'c0'), 'usdcOut'],
    [hex40(T_ORIGIN, 'de'), 'depository'],
    [units.toString(), 'units'],
    [quote.currencyIn.amountFormatted, 'unitsFormatted'],
    [quote.currencyIn.minimumAmount ?? '', 'unitsMinimum'],
    [out.toString(), 'outUnits'],
    [quote.currencyOut.amountFormatted, 'outFormatted'],
    [quote.currencyOut.minimumAmount ?? '', 'outMinimum'],
  ]);
  strings.delete('');
  if (appFee > 0n) {
    strings.set(appFee.toString(), 'appFee');
    strings.set(quote.appFees[0].amountFormatted, 'appFeeFormatted');
  }
  const raws = new Map<string, ArgName>([
    [T_API_KEY, 'apiKeyId'],
    [T_REFERRER, 'referrer'],
  ]);
  const numbers = new Map<number, ArgName>([
    [T_ORIGIN, 'origin'],
    [T_DESTINATION, 'destination'],
    [1000 + T, 'depositBlock'],
    [2000 + T, 'fillBlock'],
    [3000 + T, 'refundBlock'],
  ]);
  return { strings, raws, numbers };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const T_QUOTED_SECONDS = T_QUOTED_MS / 1000;

type MarkKind = 'S' | 'N' | 'R' | 'I' | 'U' | 'M';
/** Placeholder markers in the JSON before it becomes a `format()` string. */
const mark = (kind: MarkKind, key: string | number) => `@@${kind}:${key}@@`;

/** A projection row of one (shape, outcome): the request's record after all its events, as `writeRows` stores it. */
interface TemplateRow {
  readonly shape: Shape;
  readonly outcome: Outcome;
  readonly projection: string;
  /** `format()` string of the row as JSON: `{id, state, <column>: value, …}` (see `rowJson`). */
  readonly rowFormat: string;
}

export interface Templates {
  readonly events: readonly TemplateEvent[];
  readonly rows: readonly TemplateRow[];
  /** SQL of the `format()` arguments over a request row `r`: ARGS, then times (ISO, unix seconds, unix ms). */
  readonly expressions: readonly string[];
}

/** A projection column's value as JSON, as `jsonb_populate_record` reads it back into the column's type. */
function jsonValue(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'timestamptz') return value instanceof Date ? value.toISOString() : String(value);
  if ((type === 'bigint' || type === 'integer') && typeof value === 'number') return value;
  if (type === 'bigint' || type === 'integer' || type === 'numeric') return String(value);
  return value;
}

/** The row a projection's `writeRows` would store for this state, as one JSON object. */
function rowJson(projection: Projection, id: string, state: unknown): Record<string, unknown> {
  const stored = projection.codec ? projection.codec.encode(state) : state;
  const row: Record<string, unknown> = { id, state: JSON.parse(JSON.stringify(stored)) as unknown };
  for (const column of projection.columns) row[column.name] = jsonValue(column.type, column.value(state));
  return row;
}

/**
 * Every template event, and for each of `projections` (folds of request streams) the row each (shape, outcome)
 * ends as: the template request through `decide`/`evolve`, its stored events through the projection's `evolve`.
 * Values that differ per request become `format()` placeholders (`%N$s`).
 */
export function buildTemplates(projections: readonly Projection[] = []): Templates {
  const isoOffsets = new Set<number>();
  const unixOffsets = new Set<number>();
  const msOffsets = new Set<number>();
  const pendingEvents: (Omit<TemplateEvent, 'dataFormat' | 'idFormat'> & {
    json: string;
    id: string | null;
    values: ReturnType<typeof templateValues>;
  })[] = [];
  const pendingRows: (Omit<TemplateRow, 'rowFormat'> & { json: string })[] = [];

  for (const shape of SHAPES) {
    const quote = templateQuote(shape);
    const values = templateValues(quote);
    const replace = (value: unknown): unknown => {
      if (typeof value === 'string') {
        const arg = values.strings.get(value);
        if (arg) return mark('S', arg);
        const raw = values.raws.get(value);
        if (raw) return mark('R', raw);
        if (ISO.test(value)) {
          const offset = (Date.parse(value) - T_QUOTED_MS) / 1000;
          if (!Number.isInteger(offset) || offset < 0)
            throw new Error(`Unexpected time ${value} in a template`);
          isoOffsets.add(offset);
          return mark('I', offset);
        }
        return value;
      }
      if (typeof value === 'number') {
        const arg = values.numbers.get(value);
        if (arg) return mark('N', arg);
        const seconds = value - T_QUOTED_SECONDS;
        if (Number.isInteger(seconds) && seconds >= 0 && seconds < 100_000) {
          unixOffsets.add(seconds);
          return mark('U', seconds);
        }
        const ms = (value - T_QUOTED_MS) / 1000;
        if (Number.isInteger(ms) && ms >= 0 && ms < 100_000) {
          msOffsets.add(ms);
          return mark('M', ms);
        }
        return value;
      }
      if (Array.isArray(value)) return value.map(replace);
      if (value !== null && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replace(item)]));
      }
      return value;
    };

    for (const { name: outcome } of OUTCOMES) {
      let state: RequestState = initialRequestState;
      const recorded: RecordedEvent[] = [];
      let lastOffset = 0;
      for (const command of templateCommands(quote, outcome)) {
        const decided = decide(state, command);
        if (decided.length !== 1)
          throw new Error(`${outcome}: ${command.type} decided ${decided.length} events`);
        for (const { event, id } of decided) {
          state = evolve(state, event);
          const offset = (Date.parse(timeOf(event)) - T_QUOTED_MS) / 1000;
          if (offset < lastOffset) throw new Error(`${outcome}: events out of time order`);
          lastOffset = offset;
          const type = eventTypeOf(event).type;
          const data = JSON.parse(JSON.stringify(eventData(event))) as unknown;
          const ord = recorded.length;
          recorded.push({
            streamId: `request-${quote.requestId.toLowerCase()}`,
            revision: BigInt(ord),
            position: { commit: 1n, prepare: BigInt(ord + 1) },
            id: id ?? `template-${ord}`,
            type,
            schemaVersion: 1,
            data,
            metadata: { command: command.type },
            createdAt: new Date(T_QUOTED_MS + offset * 1000),
          });
          pendingEvents.push({
            shape,
            outcome,
            ord,
            type,
            json: JSON.stringify(replace(data)),
            id: id ?? null,
            metadata: JSON.stringify({ command: command.type }),
            offsetSeconds: offset,
            values,
          });
        }
      }
      for (const projection of projections) {
        let row: unknown = null;
        let key: string | null = null;
        for (const event of recorded) {
          for (const eventKey of projection.keysOf(event)) {
            if (key !== null && eventKey !== key)
              throw new Error(`${projection.name}: one request, two rows`);
            key = eventKey;
            row = projection.evolve(row, event, eventKey);
          }
        }
        if (key === null || row === null) throw new Error(`${projection.name}: no row for ${outcome}`);
        pendingRows.push({
          shape,
          outcome,
          projection: projection.name,
          json: JSON.stringify(replace(rowJson(projection, key, row))),
        });
      }
    }
  }

  const iso = [...isoOffsets].sort((a, b) => a - b);
  const unix = [...unixOffsets].sort((a, b) => a - b);
  const ms = [...msOffsets].sort((a, b) => a - b);
  const isoArg = (offset: number) => ARGS.length + 1 + iso.indexOf(offset);
  const unixArg = (offset: number) => ARGS.length + 1 + iso.length + unix.indexOf(offset);
  const msArg = (offset: number) => ARGS.length + 1 + iso.length + unix.length + ms.indexOf(offset);
  const toFormat = (json: string, what: string) => {
    const format = json
      .replaceAll('%', '%%')
      .replace(/"@@S:(\w+)@@"/g, (_m, name: ArgName) => `"%${argIndex(name)}$s"`)
      .replace(/"@@[NR]:(\w+)@@"/g, (_m, name: ArgName) => `%${argIndex(name)}$s`)
      .replace(/"@@I:(\d+)@@"/g, (_m, offset: string) => `"%${isoArg(Number(offset))}$s"`)
      .replace(/"@@U:(\d+)@@"/g, (_m, offset: string) => `%${unixArg(Number(offset))}$s`)
      .replace(/"@@M:(\d+)@@"/g, (_m, offset: string) => `%${msArg(Number(offset))}$s`);
    checkNoTemplateValues(format, what);
    return format;
  };

  const events = pendingEvents.map(({ json, id, values, ...event }) => {
    let idFormat: string | null = null;
    if (id !== null) {
      idFormat = id.replaceAll('%', '%%');
      // Longest first, so a chain id never matches inside a hash.
      const tokens = [...values.strings]
        .filter(([value]) => value.length >= 6)
        .sort((a, b) => b[0].length - a[0].length);
      for (const [value, name] of tokens) idFormat = idFormat.replaceAll(value, `%${argIndex(name)}$s`);
      checkNoTemplateValues(idFormat, `${event.outcome} ${event.type} id`);
    }
    return { ...event, dataFormat: toFormat(json, `${event.outcome} ${event.type} data`), idFormat };
  });
  const rows = pendingRows.map(({ json, ...row }) => ({
    ...row,
    rowFormat: toFormat(json, `${row.projection} row of ${row.outcome}`),
  }));
  const expressions = [
    ...ARGS.map((arg) => arg.sql),
    ...iso.map(
      (offset) =>
        `to_char((r.t0 + interval '${offset} seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    ),
    ...unix.map((offset) => `(extract(epoch FROM r.t0)::bigint + ${offset})::text`),
    ...ms.map((offset) => `((extract(epoch FROM r.t0)::bigint + ${offset}) * 1000)::text`),
  ];
  if (expressions.length > 99) throw new Error(`${expressions.length} format() arguments: more than 99`);
  return { events, rows, expressions };
}

/** A template value left in a format string would be the same for every request: a bug in the placeholders. */
function checkNoTemplateValues(text: string, what: string): void {
  const leftovers = [
    String(T),
    T.toString(16),
    String(T_ORIGIN),
    String(T_DESTINATION),
    T_QUOTED_AT.slice(0, 10),
    String(T_QUOTED_SECONDS).slice(0, 6),
    T_API_KEY,
    T_REFERRER,
    '@@',
  ].filter((value) => text.includes(value));
  if (leftovers.length > 0) throw new Error(`Template ${what} still holds ${leftovers.join(', ')}`);
}

// ---------------------------------------------------------------------------------------------------------------
// SQL

const hash = (salt: number) => `(hashint8extended(g.n, ${salt}) & 2147483647)`;

function outcomeCaseSql(pick: string): string {
  let upTo = 0;
  const branches = OUTCOMES.map((outcome, index) => {
    upTo += outcome.weight;
    return `WHEN ${pick} < ${upTo} THEN ${index}`;
  });
  if (upTo !== 1000) throw new Error('Outcome weights must add up to 1000');
  return `CASE ${branches.join(' ')} END`;
}

/**
 * The rows of requests `$1..$2` (bigint), one per request, with everything the placeholders need: `$3` the number
 * of distinct users, `$4` the API key ids requests are quoted with (text[]), `$5` the first quote time, `$6` how many
 * twentieths of the requests carry no API key.
 */
function requestRowsSql(): string {
  const chains = `ARRAY[${BENCH_CHAINS.join(', ')}]::bigint[]`;
  return `
    SELECT p.*,
           p.chains[1 + p.origin_pick] AS origin,
           CASE WHEN p.same_chain THEN p.chains[1 + p.origin_pick]
                ELSE p.chains[1 + (p.origin_pick + 1 + p.destination_pick) % ${BENCH_CHAINS.length}] END AS destination,
           CASE WHEN p.has_app_fee THEN p.units * ${T_APP_FEE_BPS} / 10000 ELSE 0 END::bigint AS app_fee
      FROM (
        SELECT g.n,
               ${chains} AS chains,
               '0x' || lpad(to_hex(g.n), 8, '0') || repeat('ab', 28) AS request_id,
               ${outcomeCaseSql(`${hash(1)} % 1000`)} AS outcome,
               ${hash(2)} % 100 < 10 AS same_chain,
               ${hash(2)} % 100 < 10 OR ${hash(3)} % 100 < 30 AS eth,
               ${hash(4)} % 3 = 0 AS has_app_fee,
               ${hash(5)} % 100 < 15 AS deposit_address,
               ${hash(6)} % ${BENCH_CHAINS.length} AS origin_pick,
               ${hash(7)} % ${BENCH_CHAINS.length - 1} AS destination_pick,
               '0xaa' || lpad(to_hex(${hash(8)} % $3::int), 38, '0') AS user_address,
               ${hash(9)} % 5 = 0 AS other_recipient,
               (1 + ${hash(10)} % 1000)::bigint * 1000000 AS units,
               CASE WHEN ${hash(11)} % 20 < $6::int THEN NULL
                    ELSE ($4::text[])[1 + (${hash(11)} % 20 - $6::int) % cardinality($4::text[])] END AS api_key_id,
               CASE WHEN ${hash(11)} % 20 >= $6::int AND ${hash(12)} % 2 = 0 THEN 'acme-wallet' END AS referrer,
               $5::timestamptz + g.n * interval '${SPACING_SECONDS} seconds' AS t0
          FROM generate_series($1::bigint, $2::bigint) AS g(n)
      ) AS p`;
}

const EVENT_TEMPLATES = 'bench_event_templates';
const ROW_TEMPLATES = 'bench_row_templates';

/** What decides every generated request's values: the same for the events and for projection rows made later. */
export interface HistoryParams {
  /** The whole history's size (the number of distinct users derives from it). */
  readonly requests: number;
  /** Ids of the API keys quotes carry. */
  readonly apiKeyIds: readonly string[];
  /** Share of requests quoted without an API key, in twentieths (default 8: 40%). */
  readonly withoutApiKeyTwentieths?: number;
}

/** Distinct users: about 20 requests per wallet. */
export const userCount = (requests: number): number => Math.max(100, Math.round(requests / 20));

const requestParams = (history: HistoryParams, start: number, end: number): unknown[] => [
  start,
  end,
  userCount(history.requests),
  history.apiKeyIds,
  HISTORY_START.toISOString(),
  history.withoutApiKeyTwentieths ?? 8,
];

/** The request rows CTE `r`: each request's values, computed once and substituted into all its templates. */
const requestValuesCte = (expressions: readonly string[]) => `
    r AS MATERIALIZED (
      SELECT r.*, ${expressions.map((sql, index) => `${sql} AS a${index + 1}`).join(', ')}
        FROM (${requestRowsSql()}) AS r)`;

const formatArgs = (expressions: readonly string[]) =>
  expressions.map((_, index) => `r.a${index + 1}`).join(', ');

/** Runs `write(tx, start, end)` over requests `[first, first + count)` in chunks, `parallel` transactions at a time. */
async function inChunks(
  db: Database,
  range: { first: number; count: number; chunk: number; parallel?: number },
  write: (tx: SqlExecutor, start: number, end: number) => Promise<void>,
  onProgress?: (done: number) => void,
): Promise<void> {
  const starts: number[] = [];
  for (let start = range.first; start < range.first + range.count; start += range.chunk) starts.push(start);
  let done = 0;
  const writer = async (): Promise<void> => {
    for (let start = starts.shift(); start !== undefined; start = starts.shift()) {
      const end = Math.min(range.first + range.count, start + range.chunk) - 1;
      await db.transaction((tx) => write(tx, start, end));
      done += end + 1 - start;
      onProgress?.(done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, range.parallel ?? 2) }, writer));
}

const shapeColumns = `same_chain boolean NOT NULL, eth boolean NOT NULL, app_fee boolean NOT NULL,
      deposit_address boolean NOT NULL, other_recipient boolean NOT NULL, outcome integer NOT NULL`;
const shapeParams = (items: readonly { shape: Shape; outcome: Outcome }[]) => [
  items.map((item) => item.shape.sameChain),
  items.map((item) => item.shape.eth),
  items.map((item) => item.shape.appFee),
  items.map((item) => item.shape.depositAddress),
  items.map((item) => item.shape.otherRecipient),
  items.map((item) => OUTCOMES.findIndex((outcome) => outcome.name === item.outcome)),
];

// ---------------------------------------------------------------------------------------------------------------
// Seeding the log

export interface SeedRequestsOptions extends HistoryParams {
  /** Requests per INSERT statement (each its own transaction). */
  readonly chunk: number;
  /**
   * On an empty log: drop the unique and feed indexes of `events` while loading and build them afterwards (the same
   * names and definitions as the migration), which is cheaper than maintaining them row by row.
   */
  readonly dropIndexes?: boolean;
  /** Chunks written at the same time, each by its own connection (default 2). */
  readonly parallel?: number;
  /** Starting request number (another seeding into the same log continues after the first); default 0. */
  readonly firstRequest?: number;
  /** How many requests to write (default: `requests`, the whole history). */
  readonly count?: number;
  readonly onProgress?: (done: number, total: number, seconds: number) => void;
}

export interface SeededRequests {
  readonly requests: number;
  readonly events: number;
  readonly seconds: number;
  readonly eventsMiB: number;
  readonly templates: number;
  /** Of `seconds`, the time spent building the indexes afterwards (0 when they were kept). */
  readonly indexSeconds: number;
}

export async function seedRequests(db: Database, options: SeedRequestsOptions): Promise<SeededRequests> {
  const started = now();
  const { events: templates, expressions } = buildTemplates();
  await db.query(`DROP TABLE IF EXISTS ${EVENT_TEMPLATES}`);
  await db.query(`
    CREATE TABLE ${EVENT_TEMPLATES} (
      ${shapeColumns}, ord integer NOT NULL, event_type text NOT NULL, data_format text NOT NULL,
      id_format text, metadata jsonb NOT NULL, offset_seconds integer NOT NULL)`);
  // Kept inline and uncompressed: every generated event reads its template's format string.
  await db.query(`ALTER TABLE ${EVENT_TEMPLATES} ALTER data_format SET STORAGE PLAIN`);
  await db.query(
    `INSERT INTO ${EVENT_TEMPLATES}
     SELECT * FROM unnest($1::boolean[], $2::boolean[], $3::boolean[], $4::boolean[], $5::boolean[], $6::int[],
                          $7::int[], $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::int[])`,
    [
      ...shapeParams(templates),
      templates.map((t) => t.ord),
      templates.map((t) => t.type),
      templates.map((t) => t.dataFormat),
      templates.map((t) => t.idFormat),
      templates.map((t) => t.metadata),
      templates.map((t) => t.offsetSeconds),
    ],
  );
  await db.query(`ANALYZE ${EVENT_TEMPLATES}`);
  const rebuildIndexes = options.dropIndexes === true && (await isEmpty(db));
  if (rebuildIndexes) await dropSecondaryIndexes(db);

  const args = formatArgs(expressions);
  const sql = `
    WITH ${requestValuesCte(expressions)},
    inserted AS (
      INSERT INTO events (stream_id, stream_revision, event_id, event_type, schema_version, data, metadata, created_at)
      SELECT 'request-' || r.request_id, t.ord,
             CASE WHEN t.id_format IS NULL THEN gen_random_uuid()::text ELSE format(t.id_format, ${args}) END,
             t.event_type, 1, format(t.data_format, ${args})::jsonb, t.metadata,
             r.t0 + t.offset_seconds * interval '1 second'
        FROM r JOIN ${EVENT_TEMPLATES} t ON ${SHAPE_JOIN}
       ORDER BY r.t0 + t.offset_seconds * interval '1 second', r.n, t.ord
      RETURNING global_position, stream_id, stream_revision, created_at),
    streams AS (
      INSERT INTO event_streams (stream_id, revision, updated_at)
      SELECT stream_id, max(stream_revision), max(created_at) FROM inserted GROUP BY stream_id)
    SELECT min(global_position) AS first, max(global_position) AS last FROM inserted`;

  const count = options.count ?? options.requests;
  await inChunks(
    db,
    { first: options.firstRequest ?? 0, count, chunk: options.chunk, parallel: options.parallel },
    async (tx, start, end) => {
      // Sorting a chunk's events into time order takes a few hundred MB: in memory, not in temporary files.
      await tx.query(`SET LOCAL work_mem = '512MB'`);
      const { rows } = await tx.query<{ first: bigint; last: bigint }>(
        sql,
        requestParams(options, start, end),
      );
      await checkChunkOrder(tx, rows[0].first, rows[0].last);
    },
    (done) => options.onProgress?.(done, count, (now() - started) / 1000),
  );
  await db.query(`DROP TABLE ${EVENT_TEMPLATES}`);
  const indexSeconds = rebuildIndexes ? await createSecondaryIndexes(db) : 0;
  const { rows } = await db.query<{ events: bigint; bytes: bigint }>(
    `SELECT (SELECT count(*) FROM events WHERE stream_id LIKE 'request-%') AS events,
            pg_total_relation_size('events') AS bytes`,
  );
  return {
    requests: count,
    events: Number(rows[0].events),
    seconds: (now() - started) / 1000,
    eventsMiB: Number(rows[0].bytes) / 1024 ** 2,
    templates: templates.length,
    indexSeconds,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Projection rows from the same templates

/**
 * Writes the rows `projection` folds requests `[first, first + count)` of the history into, straight into `table`
 * (upserting), from the template rows: what rebuilding the projection from the generated log writes, without
 * reading and folding millions of events. `compareProjectionRows` checks the two agree.
 */
export async function fillProjectionRows(
  db: Database,
  projection: Projection,
  table: string,
  history: HistoryParams,
  range: { first: number; count: number; chunk: number; parallel?: number },
  onProgress?: (done: number) => void,
): Promise<void> {
  const { rows: templates, expressions } = buildTemplates([projection]);
  const longest = Math.max(...templates.map((row) => row.rowFormat.length));
  await db.query(`DROP TABLE IF EXISTS ${ROW_TEMPLATES}`);
  await db.query(`CREATE TABLE ${ROW_TEMPLATES} (${shapeColumns}, row_format text NOT NULL)`);
  // Inline and uncompressed when it fits a page: every generated row reads its template's format string.
  if (longest < 7_900) await db.query(`ALTER TABLE ${ROW_TEMPLATES} ALTER row_format SET STORAGE PLAIN`);
  await db.query(
    `INSERT INTO ${ROW_TEMPLATES}
     SELECT * FROM unnest($1::boolean[], $2::boolean[], $3::boolean[], $4::boolean[], $5::boolean[], $6::int[],
                          $7::text[])`,
    [...shapeParams(templates), templates.map((row) => row.rowFormat)],
  );
  await db.query(`ANALYZE ${ROW_TEMPLATES}`);
  const names = ['id', 'state', ...projection.columns.map((column) => identifier(column.name))];
  const sql = `
    WITH ${requestValuesCte(expressions)}
    INSERT INTO ${table} (${names.join(', ')})
    SELECT ${names.map((name) => `p.${name}`).join(', ')}
      FROM r JOIN ${ROW_TEMPLATES} t ON ${SHAPE_JOIN},
           LATERAL jsonb_populate_record(NULL::${table}, format(t.row_format, ${formatArgs(expressions)})::jsonb) AS p
    ON CONFLICT (id) DO UPDATE SET ${names
      .slice(1)
      .map((name) => `${name} = excluded.${name}`)
      .join(', ')}`;
  await inChunks(
    db,
    range,
    async (tx, start, end) => {
      await tx.query(sql, requestParams(history, start, end));
    },
    onProgress,
  );
  await db.query(`DROP TABLE ${ROW_TEMPLATES}`);
}

/**
 * Compares, row by row and column by column, `actual` (rows written by the projection runner) with the template rows
 * of the same requests, for the requests `[first, first + count)` whose every event lies at or before `through` in
 * the log (fully applied). Returns how many were compared; throws on the first difference.
 */
export async function compareProjectionRows(
  db: Database,
  projection: Projection,
  actual: string,
  history: HistoryParams,
  range: { first: number; count: number },
  through: { commit: bigint; prepare: bigint },
): Promise<number> {
  const expected = 'bench_expected_rows';
  await db.query(`DROP TABLE IF EXISTS ${expected}`);
  await db.query(`CREATE TABLE ${expected} (LIKE ${actual})`);
  await fillProjectionRowsFresh(db, projection, expected, history, range);
  const columns = ['state', ...projection.columns.map((column) => identifier(column.name))];
  const { rows } = await db.query<{ compared: bigint; different: string | null }>(
    `WITH applied AS (
       SELECT e.* FROM ${expected} e
        WHERE NOT EXISTS (
          SELECT 1 FROM events x
           WHERE x.stream_id = 'request-' || e.id
             AND (x.transaction_id, x.global_position) > ($1::text::xid8, $2::bigint)))
     SELECT count(*) AS compared,
            min(a.id) FILTER (WHERE a.id IS NULL
                                 OR ROW(${columns.map((c) => `e.${c}`).join(', ')})
                                    IS DISTINCT FROM ROW(${columns.map((c) => `a.${c}`).join(', ')})) AS different
       FROM applied e LEFT JOIN ${actual} a ON a.id = e.id`,
    [through.commit.toString(), through.prepare],
  );
  const different = rows[0].different ?? null;
  if (different !== null) {
    const { rows: pair } = await db.query<{ expected: string; actual: string }>(
      `SELECT row_to_json(e)::text AS expected, row_to_json(a)::text AS actual
         FROM ${expected} e LEFT JOIN ${actual} a ON a.id = e.id WHERE e.id = $1`,
      [different],
    );
    throw new Error(
      `${projection.name}: the template row of ${different} differs from the projection's:\n` +
        `expected ${pair[0]?.expected}\nactual   ${pair[0]?.actual}`,
    );
  }
  await db.query(`DROP TABLE ${expected}`);
  return Number(rows[0].compared);
}

/** `fillProjectionRows` into a fresh copy of a projection table (given the primary key its upsert needs). */
async function fillProjectionRowsFresh(
  db: Database,
  projection: Projection,
  table: string,
  history: HistoryParams,
  range: { first: number; count: number },
): Promise<void> {
  await db.query(`ALTER TABLE ${table} ADD PRIMARY KEY (id)`);
  await fillProjectionRows(db, projection, table, history, { ...range, chunk: range.count, parallel: 1 });
}

async function isEmpty(db: Database): Promise<boolean> {
  const { rows } = await db.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM events) AS empty');
  return rows[0].empty;
}

/** The secondary indexes of `events` as the event-store migration creates them. */
const SECONDARY_INDEXES = [
  {
    name: 'events_stream_revision_key',
    sql: 'CREATE UNIQUE INDEX events_stream_revision_key ON events (stream_id, stream_revision)',
    constraint: true,
  },
  {
    name: 'events_event_id_key',
    sql: 'CREATE UNIQUE INDEX events_event_id_key ON events (event_id)',
    constraint: true,
  },
  {
    name: 'events_feed_idx',
    sql: 'CREATE INDEX events_feed_idx ON events (transaction_id, global_position)',
    constraint: false,
  },
];

async function dropSecondaryIndexes(db: Database): Promise<void> {
  await db.query(
    'ALTER TABLE events DROP CONSTRAINT events_stream_revision_key, DROP CONSTRAINT events_event_id_key',
  );
  await db.query('DROP INDEX events_feed_idx');
}

/** Builds the three indexes side by side (one connection each), then attaches the unique ones as constraints. */
async function createSecondaryIndexes(db: Database): Promise<number> {
  const started = now();
  await Promise.all(
    SECONDARY_INDEXES.map((index) =>
      db.transaction(async (tx) => {
        await tx.query(`SET LOCAL maintenance_work_mem = '512MB'`);
        await tx.query(index.sql);
      }),
    ),
  );
  await db.query(
    `ALTER TABLE events ${SECONDARY_INDEXES.filter((index) => index.constraint)
      .map((index) => `ADD CONSTRAINT ${index.name} UNIQUE USING INDEX ${index.name}`)
      .join(', ')}`,
  );
  return (now() - started) / 1000;
}

/**
 * In the chunk just written (this transaction's events), every stream starts at revision 0 with consecutive revisions
 * in log order, and the log is in time order: what the joins after the sort must have preserved.
 */
async function checkChunkOrder(tx: SqlExecutor, first: bigint, last: bigint): Promise<void> {
  const { rows } = await tx.query<{ bad_revisions: bigint; out_of_time: bigint }>(
    `SELECT count(*) FILTER (WHERE stream_revision <> coalesce(previous_revision + 1, 0)) AS bad_revisions,
            count(*) FILTER (WHERE created_at < previous_time) AS out_of_time
       FROM (SELECT stream_revision, created_at,
                    lag(stream_revision) OVER (PARTITION BY stream_id ORDER BY global_position) AS previous_revision,
                    lag(created_at) OVER (ORDER BY global_position) AS previous_time
               FROM events
              WHERE global_position BETWEEN $1 AND $2 AND transaction_id = pg_current_xact_id()) AS chunk`,
    [first, last],
  );
  if (rows[0].bad_revisions !== 0n || rows[0].out_of_time !== 0n) {
    throw new Error(
      `Generated chunk out of order: ${rows[0].bad_revisions} revisions, ${rows[0].out_of_time} times`,
    );
  }
}

/**
 * Reads `sample` request streams spread over the log through the event store, decodes each event with the app's
 * registry and folds it through the aggregate's `evolve`: a generated history the app could not load throws here.
 * Returns how many streams ended in each status.
 */
export async function checkSampleFolds(
  db: Database,
  requests: number,
  sample: number,
  firstRequest = 0,
): Promise<Record<string, number>> {
  const registry = new EventRegistry().register(...REQUEST_EVENTS);
  const store = new PostgresEventStore(db);
  const statuses: Record<string, number> = {};
  const step = Math.max(1, Math.floor(requests / sample));
  for (let n = firstRequest; n < firstRequest + requests; n += step) {
    const requestId = `0x${n.toString(16).padStart(8, '0')}${'ab'.repeat(28)}`;
    const recorded = await store.readStream(`request-${requestId}`);
    if (recorded.length === 0) throw new Error(`Generated request ${requestId} has no events`);
    let state: RequestState = initialRequestState;
    for (const event of recorded) {
      const domainEvent = registry.deserialize(event) as Parameters<typeof evolve>[1];
      state = evolve(state, domainEvent);
    }
    if (state.status === 'none' || state.requestId !== requestId) {
      throw new Error(`Generated request ${requestId} folds to ${JSON.stringify(state)}`);
    }
    statuses[state.status] = (statuses[state.status] ?? 0) + 1;
  }
  return statuses;
}
