import { Body, Controller, Get, Inject, Param, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { DATABASE, type Database } from '../database/database.js';
import { AdminOnly } from '../webhooks/admin/admin-token.guard.js';
import { RevenueShareDto, RevenueShareListDto, SetRevenueShareBodyDto } from './revenue-share-admin.dto.js';
import { revenueShareViews } from './revenue-share-view.js';

const KEY_PARAM = {
  name: 'idOrPrefix',
  description: 'The API key: its id (UUID) or its displayed prefix (`fk_` + 7 characters)',
};

/**
 * Operator routes for revenue share (docs/api-keys.md): a key's KYB flag and payout address, and what it earns.
 * Every route needs `x-admin-token`; the same is `npm run cli -- api-keys:revenue-share` and `api-keys:list`.
 */
@ApiTags('admin')
@Controller('admin')
@AdminOnly()
export class RevenueShareAdminController {
  constructor(
    private readonly apiKeys: ApiKeysService,
    @Inject(DATABASE) private readonly db: Database,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('api-keys/revenue-share')
  @ApiOperation({
    summary: "Every API key's revenue share: KYB, payout address, trailing-30-day volume, tier",
  })
  @ApiOkResponse({ type: RevenueShareListDto })
  async list(): Promise<RevenueShareListDto> {
    return { apiKeys: await revenueShareViews(this.db, await this.apiKeys.list(), this.clock.now()) };
  }

  @Get('api-keys/:idOrPrefix/revenue-share')
  @ApiOperation({ summary: "One API key's revenue share" })
  @ApiParam(KEY_PARAM)
  @ApiOkResponse({ type: RevenueShareDto })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: neither a key id nor a key prefix' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no API key matches' })
  async get(@Param('idOrPrefix') idOrPrefix: string): Promise<RevenueShareDto> {
    const [view] = await revenueShareViews(this.db, [await this.apiKeys.find(idOrPrefix)], this.clock.now());
    return view;
  }

  @Put('api-keys/:idOrPrefix/revenue-share')
  @ApiOperation({ summary: "Set an API key's revenue-share eligibility: KYB verified, payout address" })
  @ApiParam(KEY_PARAM)
  @ApiOkResponse({ type: RevenueShareDto })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: a malformed flag or address, or neither given' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no API key matches' })
  async set(
    @Param('idOrPrefix') idOrPrefix: string,
    @Body() body: SetRevenueShareBodyDto,
  ): Promise<RevenueShareDto> {
    const key = await this.apiKeys.setRevenueShare(idOrPrefix, {
      ...(body.kybVerified === undefined ? {} : { kybVerified: body.kybVerified }),
      ...(body.payoutAddress === undefined ? {} : { payoutAddress: body.payoutAddress }),
    });
    const [view] = await revenueShareViews(this.db, [key], this.clock.now());
    return view;
  }
}
