import { Body, Controller, HttpCode, Post, Query } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Hex } from 'viem';
import { AnonymousRateLimit, OptionalApiKey } from '../api-keys/api-key.decorators.js';
import { AppFeesService, type ClaimExecution } from '../app-fees/app-fees.service.js';
import { ExecutePermitBodyDto, ExecutePermitQueryDto } from './execute-permit.dto.js';
import { ExecuteService } from './execute.service.js';

/**
 * The execute API: where signature steps post (`/execute/permits?signature=…`). No key needed, but each call can
 * cost the relayer gas, so it is rate-limited like anonymous quotes: per API key when one is sent, else per client
 * address (`ANONYMOUS_RATE_LIMIT_PER_MINUTE`).
 */
@ApiTags('execute')
@Controller('execute')
export class ExecuteController {
  constructor(
    private readonly execute: ExecuteService,
    private readonly appFees: AppFeesService,
  ) {}

  @Post('permits')
  @HttpCode(200)
  @OptionalApiKey()
  @AnonymousRateLimit()
  @ApiHeader({
    name: 'x-api-key',
    required: false,
    description: 'Counts the call against the key’s rate limit instead of the client address’s',
  })
  @ApiOperation({
    summary:
      'Submit a signed permit deposit (`kind: permit`, usePermit quotes: the request goes depositing) or a signed ' +
      'app-fee claim (`kind: claim` or `request`: the claim is paid from the treasury)',
  })
  @ApiOkResponse({ description: '`{message, requestId, txHash}` (claims also `status`: paid or submitted)' })
  @ApiResponse({
    status: 400,
    description:
      'INVALID_INPUT, INVALID_SIGNATURE, UNSUPPORTED_OPTION, CHAIN_RPC_UNAVAILABLE (the origin RPC failed: nothing sent), ' +
      'CLAIM_BELOW_GAS (a claim whose payout is now worth less than its gas: nothing paid, the balance claimable again)',
  })
  @ApiResponse({
    status: 409,
    description:
      "CONFLICT (permit past its deposit or its quote's expiry, or one the relayer would pay to revert: it would revert now, expires within a minute, or the user's permits in flight leave it unfunded), " +
      'SPONSORSHIP_NOT_COVERED (the app-fee balance sponsoring the quote no longer covers it: nothing sent), ' +
      'CLAIM_EXPIRED, CLAIM_ALREADY_USED, CLAIM_PAYOUT_FAILED',
  })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED: an x-api-key was sent but is invalid or revoked' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no quote or claim has this request id' })
  @ApiResponse({
    status: 429,
    description: 'RATE_LIMITED: past the key’s or the client address’s limit; retry after `Retry-After`',
  })
  @ApiResponse({ status: 503, description: 'CHAIN_NOT_CONFIGURED: no relayer or RPC for the origin chain' })
  permits(
    @Body() body: ExecutePermitBodyDto,
    @Query() query: ExecutePermitQueryDto,
  ): Promise<{ message: string; requestId: string; txHash: string } | ClaimExecution> {
    // The spec shows both `claim` and `request` for a signed app-fee claim.
    if (body.kind !== 'permit') return this.appFees.authorize(body.requestId, query.signature as Hex);
    return this.execute.permit(body.requestId, query.signature as Hex);
  }
}
