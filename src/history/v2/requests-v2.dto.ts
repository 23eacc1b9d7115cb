import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { V2_STATUSES, type V2Status } from '../../../projections/requests-v2/v2-record.js';
import type { V2DeprecationNotice } from './v2-sunset.js';

export const V2_DEFAULT_LIMIT = 20;
export const V2_MAX_LIMIT = 50;
/** Unix seconds up to 9999-12-31T23:59:59Z (beyond it PostgreSQL has no timestamp). */
const MAX_TIMESTAMP = 253_402_300_799;

/** `GET /requests/v2` query: every filter optional, combined with AND. Unknown parameters are ignored. */
export class ListRequestsV2QueryDto {
  @ApiPropertyOptional({ description: 'Address that deposited (matched case-insensitively)' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  readonly user?: string;

  @ApiPropertyOptional({ type: Number })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  readonly originChainId?: number;

  @ApiPropertyOptional({ type: Number })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  readonly destinationChainId?: number;

  @ApiPropertyOptional({
    description: 'Any transaction hash of the request: deposit, fill, refund or failed',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  readonly hash?: string;

  @ApiPropertyOptional({ description: 'The referrer the quote was requested with' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  readonly referrer?: string;

  @ApiPropertyOptional({ type: Number, description: 'Created at or after this time (unix seconds)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_TIMESTAMP)
  readonly startTimestamp?: number;

  @ApiPropertyOptional({
    type: Number,
    description: 'Created at or before this time (unix seconds, whole second)',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(MAX_TIMESTAMP)
  readonly endTimestamp?: number;

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: V2_MAX_LIMIT, default: V2_DEFAULT_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(V2_MAX_LIMIT)
  readonly limit?: number;

  @ApiPropertyOptional({ description: 'The `continuation` of the previous page' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(512)
  readonly continuation?: string;
}

export class V2DeprecationDto implements V2DeprecationNotice {
  @ApiProperty({ example: '2026-07-22T00:00:00.000Z' })
  readonly deprecatedAt!: string;

  @ApiProperty({ example: '2026-11-24T00:00:00.000Z' })
  readonly sunsetAt!: string;

  @ApiProperty({ example: '/requests/v3' })
  readonly successor!: string;

  @ApiProperty()
  readonly message!: string;
}

/** The v2 record's outline for OpenAPI; docs/history-v2.md lists every field and how it maps to v3. */
export class RequestV2Dto {
  @ApiProperty()
  readonly id!: string;

  @ApiProperty({ enum: V2_STATUSES })
  readonly status!: V2Status;

  @ApiProperty()
  readonly user!: string;

  @ApiProperty({ type: String, nullable: true })
  readonly referrer!: string | null;

  @ApiProperty({ type: String, nullable: true })
  readonly moonpayId!: string | null;

  @ApiProperty({ type: String, nullable: true })
  readonly depositAddress!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true })
  readonly protocol!: object;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      '`metadata`, `fees` (raw: gas, fixed, price, gateway), `feesUsd`, `expandedPriceImpact`, `appFees`, ' +
      '`paidAppFees`, `feeSponsorship`, `subsidizedRequest`, `subsidizedFee`, `currency`, `currencyObject`, ' +
      '`feeCurrency`, `feeCurrencyObject`, `appFeeCurrencyObject`, `price`, `inTxs[].hash`, `outTxs[].hash`, ' +
      '`failReason`/`refundFailReason` (`N/A` when absent), `supersededByRequestId`, …',
  })
  readonly data!: object;

  @ApiProperty()
  readonly createdAt!: string;

  @ApiProperty()
  readonly updatedAt!: string;
}

export class ListRequestsV2ResponseDto {
  @ApiProperty({ type: [RequestV2Dto] })
  readonly requests!: readonly RequestV2Dto[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass as `continuation` for the next page; null at the end',
  })
  readonly continuation!: string | null;

  @ApiProperty({ type: V2DeprecationDto })
  readonly deprecation!: V2DeprecationDto;
}
