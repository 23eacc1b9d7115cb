import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, type TransformFnParams, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import {
  API_KEY_ID,
  BLOCK_NUMBER,
  BOOLEAN,
  CHAIN_ID,
  DECIMAL,
  FEATURE,
  FILTERABLE_STATUSES,
  MAX_LIMIT,
  REQUEST_TYPES,
  SORT_BY,
  SORT_DIRECTIONS,
  TEXT_VALUE,
  UNIX_SECONDS,
} from './requests-v3.fields.js';

const TEXT_MESSAGE = '$property must be 1 to 256 characters without control characters';

/** An id, address, hash or reason: one value (a repeated parameter is refused; use `filters` for OR). */
const Text = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: String, description, maxLength: 256 }),
    IsOptional(),
    IsString({ message: '$property must be a single string' }),
    Matches(TEXT_VALUE, { message: TEXT_MESSAGE }),
  );

const Pattern = (pattern: RegExp, description: string, example: string, message: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: String, description, pattern: pattern.source, example }),
    IsOptional(),
    IsString({ message: '$property must be a single value' }),
    Matches(pattern, { message: `$property ${message}` }),
  );

const ChainId = (description: string) =>
  Pattern(CHAIN_ID, description, '8453', 'must be a positive integer chain id');

const OneOf = (values: readonly string[], description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: String, enum: [...values], description }),
    IsOptional(),
    IsIn(values, { message: `$property must be one of: ${values.join(', ')}` }),
  );

const Flag = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: Boolean, description }),
    IsOptional(),
    IsIn(BOOLEAN, { message: '$property must be true or false' }),
  );

/** A comma-separated list, a repeated parameter, or both: `a,b` = `a&x=b` = `[a, b]`. */
const toList = ({ value }: TransformFnParams): unknown =>
  value === undefined
    ? undefined
    : (Array.isArray(value) ? value : [value]).flatMap((item: unknown) =>
        typeof item === 'string' ? item.split(',').map((part) => part.trim()) : [item],
      );

const List = (pattern: RegExp, description: string, message: string) =>
  applyDecorators(
    ApiPropertyOptional({
      type: [String],
      description: `${description} Comma-separated, repeated, or both.`,
    }),
    IsOptional(),
    Transform(toList),
    IsArray(),
    ArrayMaxSize(50),
    IsString({ each: true }),
    Matches(pattern, { each: true, message: `each of $property ${message}` }),
  );

const Seconds = (description: string) =>
  Pattern(UNIX_SECONDS, description, '1793491200', 'must be unix seconds (a non-negative integer)');
const Block = (description: string) =>
  Pattern(BLOCK_NUMBER, description, '1000', 'must be a block number (a non-negative integer)');
const Decimal = (description: string, example: string) =>
  Pattern(DECIMAL, description, example, 'must be a non-negative decimal number');

/**
 * The query of `GET /requests/v3` (spec: "GET /requests/v3"). Every parameter is optional and they combine with
 * AND; values are checked here for shape only, and `RequestsV3Query` gives them meaning. Unknown parameters (such as
 * the v2 `hash` and `referrer`) are dropped by the validation pipe, like everywhere else. See docs/history.md.
 */
export class RequestsV3QueryDto {
  @Text(
    'Exact match on the request id, a wallet (user, sender, recipient), the deposit address or any transaction ' +
      'hash (deposit, fill, refund, failed, chain-entry); EVM hex case-insensitively.',
  )
  term?: string;

  @Text('The request id.')
  id?: string;

  @Text('The protocol order id (32-byte hex).')
  orderId?: string;

  @Text('A deposit transaction hash (or the transfer into a deposit address).')
  depositTxHash?: string;

  @Text('A fill transaction hash.')
  fillTxHash?: string;

  @Text('A refund transaction hash.')
  refundTxHash?: string;

  @ChainId('Origin chain id.')
  originChainId?: string;

  @ChainId('Destination chain id.')
  destinationChainId?: string;

  @ChainId('Either the origin or the destination chain id.')
  chainId?: string;

  @List(
    CHAIN_ID,
    'Private chains to include. No chain is private yet: accepted and validated, with no effect.',
    'must be a positive integer chain id',
  )
  privateChainsToInclude?: string[];

  @Text('The user (the address depositing on the origin chain).')
  user?: string;

  @Text('The deposit address.')
  depositAddress?: string;

  @Text('The recipient.')
  recipient?: string;

  @OneOf(FILTERABLE_STATUSES, 'Request status (the spec lists these five as filterable).')
  status?: string;

  @Text('Recorded fail reason, exactly (e.g. `FILL_DEADLINE_EXPIRED`).')
  failReason?: string;

  @Text('Recorded refund-leg fail reason, exactly.')
  refundFailReason?: string;

  @Pattern(
    API_KEY_ID,
    'Only requests quoted with this API key: the id (UUID) of the calling key; any other key answers 403.',
    '5f0c3d52-8d1e-4c4e-9a39-7d0cbb2c1e11',
    'must be an API key id (UUID)',
  )
  apiKey?: string;

  @OneOf(REQUEST_TYPES, 'Request type.')
  requestType?: string;

  @ChainId('Chain id of the input currency.')
  currencyInChainId?: string;

  @ChainId('Chain id of the output currency.')
  currencyOutChainId?: string;

  @Text('Address of the input currency.')
  currencyInAddress?: string;

  @Text('Address of the output currency.')
  currencyOutAddress?: string;

  @Text('Symbol of the input currency (case-insensitive).')
  currencyInSymbol?: string;

  @Text('Symbol of the output currency (case-insensitive).')
  currencyOutSymbol?: string;

  @Seconds('Created at or after (unix seconds, inclusive).')
  startTimestamp?: string;

  @Seconds('Created at or before (unix seconds, inclusive to the whole second).')
  endTimestamp?: string;

  @Block('Deposit block at or after (inclusive).')
  startBlock?: string;

  @Block('Deposit block at or before (inclusive).')
  endBlock?: string;

  @Decimal('Deposited amount in USD, at least.', '10')
  amountUsdMin?: string;

  @Decimal('Deposited amount in USD, at most.', '1000')
  amountUsdMax?: string;

  @Decimal('App fees in USD, at least.', '0.5')
  appFeesAmountUsdMin?: string;

  @Decimal('App fees in USD, at most.', '5')
  appFeesAmountUsdMax?: string;

  @Decimal('Fill time in seconds (deposit seen to fill landed), at least.', '5')
  fillTimeMin?: string;

  @Decimal('Fill time in seconds, at most.', '60')
  fillTimeMax?: string;

  @List(
    FEATURE,
    'Features the request must all have (e.g. `app_fees,deposit_address`).',
    'must be a feature name',
  )
  features?: string[];

  @Flag('Include child requests. No request has children yet: accepted and validated, with no effect.')
  includeChildRequests?: string;

  @ApiPropertyOptional({
    type: String,
    description:
      'JSON array of groups, e.g. `[{"status":"success","originChainId":8453},{"not:status":"refund","user":' +
      '["0xab…","0xcd…"]}]`. Fields in a group are AND-ed, groups are OR-ed; `not:` negates a key, an array is OR ' +
      'within the field, `null` tests for absence. Identity, address, chain, currency and status-style keys only.',
    maxLength: 8192,
  })
  @IsOptional()
  @IsString({ message: '$property must be a single JSON string' })
  @MaxLength(8192)
  filters?: string;

  @OneOf(SORT_BY, 'Sort key (default `createdAt`).')
  sortBy?: string;

  @OneOf(SORT_DIRECTIONS, 'Sort direction (default `desc` for the time keys, `asc` for `amountUsd`).')
  sortDirection?: string;

  @ApiPropertyOptional({
    type: Number,
    minimum: 1,
    maximum: MAX_LIMIT,
    default: 20,
    description: 'Page size.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: '$property must be an integer' })
  @Min(1)
  @Max(MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    type: String,
    description: 'The `continuation` of the previous page, with the same filters and sort.',
    maxLength: 1024,
  })
  @IsOptional()
  @IsString({ message: '$property must be a single string' })
  @MaxLength(1024)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: '$property is not a continuation this API issued' })
  continuation?: string;

  @Flag('Also answer `total`, the number of matching requests (costs one count).')
  includeTotal?: string;

  @Flag('Add `data.referrer` to the requests quoted with the calling API key.')
  includeAuthenticatedData?: string;
}
