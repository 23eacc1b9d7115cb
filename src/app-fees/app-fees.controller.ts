import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ClaimAppFeesDto } from './claim-app-fees.dto.js';
import { type AppFeeBalances, AppFeesService, type ClaimView } from './app-fees.service.js';

/** App-fee balances and claims (docs/app-fees.md). No key needed: a claim is authorized by the claim address. */
@ApiTags('app-fees')
@Controller('app-fees')
export class AppFeesController {
  constructor(private readonly appFees: AppFeesService) {}

  @Get(':address/balances')
  @ApiOperation({
    summary: 'The accrued USDC app-fee balance of a claim address: `{balances: [Amount], totals}`',
  })
  @ApiOkResponse({ description: '`{balances: [Amount], totals: {accrued, pending, withdrawn}}`' })
  @ApiResponse({ status: 400, description: 'INVALID_ADDRESS' })
  @ApiResponse({ status: 503, description: 'SERVICE_UNAVAILABLE: the balances are still being built' })
  balances(@Param('address') address: string): Promise<AppFeeBalances> {
    return this.appFees.balances(address);
  }

  @Get(':address/claims')
  @ApiOperation({ summary: "A claim address's claims, newest first: status, amounts, payout transaction" })
  @ApiOkResponse({ description: '`{claims: [...]}`' })
  @ApiResponse({ status: 400, description: 'INVALID_ADDRESS' })
  claims(@Param('address') address: string): Promise<{ claims: ClaimView[] }> {
    return this.appFees.claims(address);
  }

  @Post(':address/claim')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Reserve the whole balance for a claim: answers one `authorize` signature step (EIP-191 over the claim id)',
  })
  @ApiOkResponse({ description: '`{steps: [authorize]}`' })
  @ApiResponse({
    status: 400,
    description:
      'INVALID_INPUT, INVALID_ADDRESS, UNSUPPORTED_CHAIN, UNSUPPORTED_CURRENCY, NOTHING_TO_CLAIM, CLAIM_BELOW_FEE, ' +
      'CLAIM_BELOW_GAS (the payout would be worth less than its gas: nothing opened)',
  })
  @ApiResponse({
    status: 503,
    description:
      'CHAIN_NOT_CONFIGURED: no RPC for the payout chain; SERVICE_UNAVAILABLE: the payout cannot be weighed against its gas now',
  })
  claim(@Param('address') address: string, @Body() body: ClaimAppFeesDto): Promise<{ steps: unknown[] }> {
    return this.appFees.claim(address, body);
  }
}
