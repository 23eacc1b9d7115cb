import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { GetRequestStatusQueryDto, RequestStatusResponseDto } from './request-status.dto.js';
import { RequestStatusService } from './request-status.service.js';

/** The `check` endpoint of every step: no key needed (the Relay SDK polls it as is). */
@ApiTags('requests')
@Controller('intents')
export class RequestStatusController {
  constructor(private readonly statuses: RequestStatusService) {}

  @Get('status/v3')
  @ApiOperation({
    summary: "A request's status (the `check` endpoint of a quote's steps); no API key needed",
  })
  @ApiOkResponse({ type: RequestStatusResponseDto })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: requestId is missing or not 32-byte hex' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no quote issued this request id' })
  getV3(@Query() query: GetRequestStatusQueryDto): Promise<RequestStatusResponseDto> {
    return this.statuses.get(query.requestId);
  }

  @Get('status')
  @ApiOperation({ summary: 'The older path of the status endpoint: the same answer as /intents/status/v3' })
  @ApiOkResponse({ type: RequestStatusResponseDto })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: requestId is missing or not 32-byte hex' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no quote issued this request id' })
  get(@Query() query: GetRequestStatusQueryDto): Promise<RequestStatusResponseDto> {
    return this.statuses.get(query.requestId);
  }
}
