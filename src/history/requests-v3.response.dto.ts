import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The OpenAPI shape of `GET /requests/v3` (the records themselves are the spec's "Request record"). */
export class RequestsV3ResponseDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description:
      'Request records (spec: Resources → Request record), in the requested order. `data.referrer` is present ' +
      'only with includeAuthenticatedData=true, on requests quoted with the calling key.',
  })
  requests!: object[];

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Opaque cursor for the next page (same filters and sort); null on the last page.',
  })
  continuation!: string | null;

  @ApiPropertyOptional({
    type: Number,
    description: 'Matching requests on all pages; only with includeTotal=true.',
  })
  total?: number;
}

/** The error body every 4xx/5xx answers with (docs/errors.md). */
export class RequestsV3ErrorDto {
  @ApiProperty({ type: String })
  message!: string;

  @ApiProperty({ type: String, description: 'A code from docs/errors.md' })
  errorCode!: string;

  @ApiPropertyOptional({ description: 'For INVALID_INPUT: [{field, problems}]' })
  errorData?: unknown;
}
