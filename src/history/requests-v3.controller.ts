import { Controller, Get, Header, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { CurrentApiKey, RequireApiKey } from '../api-keys/api-key.decorators.js';
import type { AuthenticatedApiKey } from '../api-keys/api-keys.service.js';
import { RequestsV3QueryDto } from './requests-v3.query.dto.js';
import { parseRequestsV3Query } from './requests-v3.query.js';
import { RequestsV3Repository } from './requests-v3.repository.js';
import { RequestsV3ErrorDto, RequestsV3ResponseDto } from './requests-v3.response.dto.js';

@ApiTags('history')
@Controller('requests/v3')
export class RequestsV3Controller {
  constructor(private readonly requests: RequestsV3Repository) {}

  @Get()
  // Also declares the `apiKey` security scheme in OpenAPI (a second @ApiSecurity would list it twice).
  @RequireApiKey()
  @ApiOperation({
    summary: 'Request history: filterable, keyset-paginated v3 request records',
    description:
      'Only requests with a deposit seen are listed. Parameters combine with AND; `filters` adds OR groups. ' +
      'Pages: `limit` (1–50, default 20) and the opaque `continuation`. See docs/history.md.',
  })
  @ApiOkResponse({ type: RequestsV3ResponseDto })
  // The repository answers the page's JSON text (a RequestsV3Page), sent as it is.
  @Header('content-type', 'application/json; charset=utf-8')
  @ApiResponse({ status: 400, type: RequestsV3ErrorDto, description: 'INVALID_INPUT: a malformed parameter' })
  @ApiResponse({
    status: 401,
    type: RequestsV3ErrorDto,
    description: 'UNAUTHORIZED: missing, unknown or revoked key',
  })
  @ApiResponse({
    status: 403,
    type: RequestsV3ErrorDto,
    description: 'FORBIDDEN: `apiKey` names another key',
  })
  @ApiResponse({ status: 429, type: RequestsV3ErrorDto, description: "RATE_LIMITED: over the key's limit" })
  @ApiResponse({
    status: 503,
    type: RequestsV3ErrorDto,
    description: 'SERVICE_UNAVAILABLE: history still being built',
  })
  list(@Query() query: RequestsV3QueryDto, @CurrentApiKey() apiKey: AuthenticatedApiKey): Promise<string> {
    return this.requests.list(parseRequestsV3Query(query, apiKey.id));
  }
}
