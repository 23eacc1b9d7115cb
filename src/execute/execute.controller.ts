import { Body, Controller, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Hex } from 'viem';
import { ApiError } from '../common/http/api-error.js';
import { ExecutePermitBodyDto, ExecutePermitQueryDto } from './execute-permit.dto.js';
import { ExecuteService } from './execute.service.js';

/** The execute API: where signature steps post (`/execute/permits?signature=…`). No key needed. */
@ApiTags('execute')
@Controller('execute')
export class ExecuteController {
  constructor(private readonly execute: ExecuteService) {}

  @Post('permits')
  @HttpCode(200)
  @ApiOperation({ summary: 'Submit a signed permit deposit (usePermit quotes): the request goes depositing' })
  @ApiOkResponse({ description: '`{message, requestId, txHash}`' })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT, INVALID_SIGNATURE, UNSUPPORTED_OPTION' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no quote issued this request id' })
  @ApiResponse({ status: 409, description: 'CONFLICT: the request is past its deposit' })
  @ApiResponse({ status: 503, description: 'CHAIN_NOT_CONFIGURED: no relayer or RPC for the origin chain' })
  permits(
    @Body() body: ExecutePermitBodyDto,
    @Query() query: ExecutePermitQueryDto,
  ): Promise<{ message: string; requestId: string; txHash: string }> {
    if (body.kind !== 'permit') {
      throw new ApiError('UNSUPPORTED_OPTION', `kind ${body.kind} (app-fee claims) is not available yet`);
    }
    return this.execute.permit(body.requestId, query.signature as Hex);
  }
}
