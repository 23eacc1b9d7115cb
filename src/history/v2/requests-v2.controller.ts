import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { OptionalApiKey } from '../../api-keys/api-key.decorators.js';
import { ListRequestsV2QueryDto, ListRequestsV2ResponseDto } from './requests-v2.dto.js';
import { RequestsV2Service } from './requests-v2.service.js';
import { V2RateLimitGuard } from './v2-rate-limit.guard.js';
import { V2SunsetGuard } from './v2-sunset.guard.js';

const DEPRECATION_HEADERS = {
  Deprecation: {
    description: 'RFC 9745: `@<unix seconds>` of the deprecation date',
    schema: { type: 'string' },
  },
  Sunset: { description: 'RFC 8594: the HTTP-date of retirement', schema: { type: 'string' } },
  Link: { description: '`</requests/v3>; rel="successor-version"`', schema: { type: 'string' } },
};

@ApiTags('history')
@Controller('requests')
@UseGuards(V2SunsetGuard)
export class RequestsV2Controller {
  constructor(private readonly history: RequestsV2Service) {}

  @Get('v2')
  // Guards run in the order they are declared: the key first (it names the caller), then v2's limit. Decorators
  // apply bottom-up, so the limit's guard is written above the key's.
  @UseGuards(V2RateLimitGuard)
  @OptionalApiKey()
  @ApiOperation({
    summary: 'Deprecated request history (v2 records); retired on 2026-11-24, use GET /requests/v3',
    deprecated: true,
  })
  @ApiHeader({
    name: 'x-api-key',
    required: false,
    description: 'Optional; when sent, the v2 limit counts per key',
  })
  @ApiOkResponse({ type: ListRequestsV2ResponseDto, headers: DEPRECATION_HEADERS })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: a malformed filter, limit or continuation' })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED: an x-api-key was sent but is invalid or revoked' })
  @ApiResponse({
    status: 410,
    description: 'ENDPOINT_RETIRED: on or after the sunset date; `successor` says where to go',
  })
  @ApiResponse({ status: 429, description: "RATE_LIMITED: beyond this month's v2 limit; see Retry-After" })
  @ApiResponse({ status: 503, description: 'SERVICE_UNAVAILABLE: the v2 read model is still being built' })
  list(@Query() query: ListRequestsV2QueryDto): Promise<ListRequestsV2ResponseDto> {
    return this.history.list(query);
  }
}
