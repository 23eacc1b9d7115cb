import { REQUEST_TYPES } from '../requests/domain/records.js';

/** The statuses the `status` filter accepts (spec: "States and transitions"); `waiting` and `submitted` are not. */
export const FILTERABLE_STATUSES = ['success', 'failure', 'refund', 'pending', 'depositing'] as const;

/** An id, address, hash, reason or symbol: 1–256 characters, none of them a control character (NUL breaks SQL text). */
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
export const TEXT_VALUE = /^[^\u0000-\u001f\u007f]{1,256}$/u;
/** A chain id: a positive integer that fits a PostgreSQL bigint. */
export const CHAIN_ID = /^[1-9][0-9]{0,17}$/;
/** Unix seconds up to 11 digits (year 5138): every such instant is a valid PostgreSQL timestamptz. */
export const UNIX_SECONDS = /^[0-9]{1,11}$/;
export const BLOCK_NUMBER = /^[0-9]{1,18}$/;
/** A non-negative decimal (USD amounts, seconds). */
export const DECIMAL = /^[0-9]{1,30}(\.[0-9]{1,18})?$/;
export const FEATURE = /^[a-z0-9_]{1,64}$/;
export const API_KEY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const BOOLEAN = ['true', 'false'] as const;

/**
 * How a field's values are read: `hex` values are lower-cased when they are EVM hex (else kept exactly, e.g. SVM
 * addresses), `symbol` values are lower-cased (symbols match case-insensitively), `text` values are exact.
 */
export type ValueKind = 'hex' | 'text' | 'symbol' | 'chain' | 'status' | 'requestType' | 'apiKey';

/** How a set of values is matched against the `requests_v3` columns. */
export type Match =
  | { readonly type: 'column'; readonly column: string; readonly cast: 'text' | 'bigint' }
  /** A text[] column holding every hash of one kind; narrowed first through the indexed `search_terms`. */
  | { readonly type: 'hashes'; readonly column: string }
  | { readonly type: 'term' }
  | { readonly type: 'eitherChain' };

export interface FilterField {
  readonly kind: ValueKind;
  readonly match: Match;
  /** Whether `null` (an IS NULL check; for hash lists: none of that kind) makes sense for it. */
  readonly nullable: boolean;
}

const column = (name: string, cast: 'text' | 'bigint' = 'text'): Match => ({
  type: 'column',
  column: name,
  cast,
});
const hashes = (name: string): Match => ({ type: 'hashes', column: name });

/**
 * The identity, address, chain, currency and status-style parameters: each is a top-level parameter and may also be
 * used (optionally as `not:<key>`, with an array of values) inside a `filters` group.
 */
export const FILTER_FIELDS = {
  term: { kind: 'hex', match: { type: 'term' }, nullable: false },
  id: { kind: 'hex', match: column('id'), nullable: false },
  orderId: { kind: 'hex', match: column('order_id'), nullable: false },
  depositTxHash: { kind: 'hex', match: hashes('deposit_tx_hashes'), nullable: true },
  fillTxHash: { kind: 'hex', match: hashes('fill_tx_hashes'), nullable: true },
  refundTxHash: { kind: 'hex', match: hashes('refund_tx_hashes'), nullable: true },
  originChainId: { kind: 'chain', match: column('origin_chain_id', 'bigint'), nullable: false },
  destinationChainId: { kind: 'chain', match: column('destination_chain_id', 'bigint'), nullable: false },
  chainId: { kind: 'chain', match: { type: 'eitherChain' }, nullable: false },
  user: { kind: 'hex', match: column('user_address'), nullable: false },
  depositAddress: { kind: 'hex', match: column('deposit_address'), nullable: true },
  recipient: { kind: 'hex', match: column('recipient'), nullable: false },
  status: { kind: 'status', match: column('status'), nullable: false },
  failReason: { kind: 'text', match: column('fail_reason'), nullable: true },
  refundFailReason: { kind: 'text', match: column('refund_fail_reason'), nullable: true },
  apiKey: { kind: 'apiKey', match: column('api_key_id'), nullable: true },
  requestType: { kind: 'requestType', match: column('request_type'), nullable: false },
  currencyInChainId: { kind: 'chain', match: column('currency_in_chain_id', 'bigint'), nullable: false },
  currencyOutChainId: { kind: 'chain', match: column('currency_out_chain_id', 'bigint'), nullable: false },
  currencyInAddress: { kind: 'hex', match: column('currency_in_address'), nullable: false },
  currencyOutAddress: { kind: 'hex', match: column('currency_out_address'), nullable: false },
  currencyInSymbol: { kind: 'symbol', match: column('currency_in_symbol'), nullable: false },
  currencyOutSymbol: { kind: 'symbol', match: column('currency_out_symbol'), nullable: false },
} as const satisfies Record<string, FilterField>;

export type FilterKey = keyof typeof FILTER_FIELDS;
export const FILTER_KEYS = Object.keys(FILTER_FIELDS) as FilterKey[];

export const isFilterKey = (key: string): key is FilterKey => Object.hasOwn(FILTER_FIELDS, key);

/** Range bounds: top-level only. Each maps to a column, an operator and how its value becomes a SQL parameter. */
export const RANGE_FIELDS = {
  startTimestamp: { column: 'created_at', op: '>=', cast: 'timestamptz' },
  endTimestamp: { column: 'created_at', op: '<', cast: 'timestamptz' },
  startBlock: { column: 'deposit_block', op: '>=', cast: 'bigint' },
  endBlock: { column: 'deposit_block', op: '<=', cast: 'bigint' },
  amountUsdMin: { column: 'amount_usd', op: '>=', cast: 'numeric' },
  amountUsdMax: { column: 'amount_usd', op: '<=', cast: 'numeric' },
  appFeesAmountUsdMin: { column: 'app_fees_amount_usd', op: '>=', cast: 'numeric' },
  appFeesAmountUsdMax: { column: 'app_fees_amount_usd', op: '<=', cast: 'numeric' },
  fillTimeMin: { column: 'fill_time_seconds', op: '>=', cast: 'numeric' },
  fillTimeMax: { column: 'fill_time_seconds', op: '<=', cast: 'numeric' },
} as const;

export type RangeKey = keyof typeof RANGE_FIELDS;
export const RANGE_KEYS = Object.keys(RANGE_FIELDS) as RangeKey[];

/** Each lower bound with its upper bound, so that an empty range (min > max) is refused. */
export const RANGE_PAIRS: readonly (readonly [RangeKey, RangeKey])[] = [
  ['startTimestamp', 'endTimestamp'],
  ['startBlock', 'endBlock'],
  ['amountUsdMin', 'amountUsdMax'],
  ['appFeesAmountUsdMin', 'appFeesAmountUsdMax'],
  ['fillTimeMin', 'fillTimeMax'],
];

/** Parameters that exist at the top level only; naming one inside a `filters` group is refused with a reason. */
export const TOP_LEVEL_ONLY: readonly string[] = [
  ...RANGE_KEYS,
  'features',
  'privateChainsToInclude',
  'includeChildRequests',
];

export const SORTS = {
  createdAt: { column: 'created_at', cast: 'timestamptz', defaultDirection: 'desc' },
  updatedAt: { column: 'updated_at', cast: 'timestamptz', defaultDirection: 'desc' },
  amountUsd: { column: 'amount_usd', cast: 'numeric', defaultDirection: 'asc' },
} as const;

export type SortBy = keyof typeof SORTS;
export const SORT_BY = Object.keys(SORTS) as SortBy[];
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;

export { REQUEST_TYPES };
