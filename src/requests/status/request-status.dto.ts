import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';
import type { RequestStatusBody } from '../../../projections/request-status/status-body.js';
import { REQUEST_STATUSES, type RequestStatus } from '../domain/request-status.js';

/** A request id: 32 bytes of hex (the quote's `requestId`, also its order id). */
export const REQUEST_ID_PATTERN = /^0x[0-9a-fA-F]{64}$/;

export class GetRequestStatusQueryDto {
  @ApiProperty({
    description: 'The request id from the quote (32-byte hex)',
    pattern: REQUEST_ID_PATTERN.source,
    example: `0x${'ab'.repeat(32)}`,
  })
  @IsString()
  @Matches(REQUEST_ID_PATTERN, { message: 'requestId must be 0x followed by 64 hex digits' })
  readonly requestId!: string;
}

export class RequestStatusResponseDto implements RequestStatusBody {
  @ApiProperty({ enum: REQUEST_STATUSES, description: 'v3 status; a fresh or expired quote is `waiting`' })
  readonly status!: RequestStatus;

  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Extra context: why a quote expired, the superseding request, decoded revert data; else null',
  })
  readonly details!: string | null;

  @ApiProperty({ type: [String], description: 'Origin-chain deposit transaction hashes' })
  readonly inTxHashes!: readonly string[];

  @ApiProperty({
    type: [String],
    description: 'Destination-chain fill and origin-chain refund transaction hashes',
  })
  readonly txHashes!: readonly string[];

  @ApiProperty({ description: 'When the request last changed, unix milliseconds' })
  readonly updatedAt!: number;

  @ApiProperty()
  readonly originChainId!: number;

  @ApiProperty()
  readonly destinationChainId!: number;

  @ApiProperty({ description: 'When the quote was issued, unix milliseconds' })
  readonly quoteCreatedAt!: number;

  @ApiProperty({ type: String, nullable: true, description: 'The recorded fail reason, null when none' })
  readonly failReason!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The recorded refund fail reason, null when none',
  })
  readonly refundFailReason!: string | null;
}
