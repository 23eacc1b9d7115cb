import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';
import { WebhookDeliveriesService } from '../delivery/webhook-deliveries.service.js';
import { normalizeWebhookEndpoint, webhookEndpointCheck } from '../webhook-endpoint-check.js';
import { AdminOnly } from './admin-token.guard.js';
import { parseIsoInstant } from './iso-instant.js';
import {
  DeliveryDetailsDto,
  DeliveryIdParamDto,
  DeliveryListDto,
  DeliverySummaryDto,
  ListDeliveriesQueryDto,
  RedeliveredCountDto,
  RedeliverFailedBodyDto,
  SetWebhookBodyDto,
  toWebhookSettings,
  WebhookSettingsDto,
} from './webhooks-admin.dto.js';

const KEY_PARAM = {
  name: 'idOrPrefix',
  description: 'The API key: its id (UUID) or its displayed prefix (`fk_` + 7 characters)',
};
const DELIVERY_PARAM = { name: 'id', description: 'The delivery id (UUID) or its X-Webhook-Id (`whk_…`)' };

/**
 * Operator routes for webhooks (ARCHITECTURE §7: "delivery log and redeliver through the CLI and an authenticated
 * API"): an API key's endpoint, the delivery log, redelivery. Every route needs `x-admin-token`; the same
 * operations are `npm run cli -- webhooks:*`.
 */
@ApiTags('admin')
@Controller('admin')
@AdminOnly()
export class WebhooksAdminController {
  private readonly check: ReturnType<typeof webhookEndpointCheck>;

  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly deliveries: WebhookDeliveriesService,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'webhooks'>,
  ) {
    this.check = webhookEndpointCheck(config.webhooks);
  }

  @Put('api-keys/:idOrPrefix/webhook')
  @ApiOperation({
    summary: "Set (or replace) an API key's webhook endpoint and custom headers; re-enables a disabled one",
  })
  @ApiParam(KEY_PARAM)
  @ApiOkResponse({ type: WebhookSettingsDto })
  @ApiResponse({
    status: 400,
    description:
      'INVALID_INPUT: a malformed body, a refused target (not HTTPS, a private address, …) or header',
  })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no API key matches' })
  async setWebhook(
    @Param('idOrPrefix') idOrPrefix: string,
    @Body() body: SetWebhookBodyDto,
  ): Promise<WebhookSettingsDto> {
    const endpoint = normalizeWebhookEndpoint(body.url, body.headers);
    return toWebhookSettings(await this.apiKeys.setWebhook(idOrPrefix.trim(), endpoint, this.check));
  }

  @Delete('api-keys/:idOrPrefix/webhook')
  @ApiOperation({ summary: "Remove an API key's webhook endpoint: no new deliveries are made for it" })
  @ApiParam(KEY_PARAM)
  @ApiOkResponse({ type: WebhookSettingsDto })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: neither a key id nor a key prefix' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no API key matches' })
  async removeWebhook(@Param('idOrPrefix') idOrPrefix: string): Promise<WebhookSettingsDto> {
    return toWebhookSettings(await this.apiKeys.removeWebhook(idOrPrefix.trim()));
  }

  @Get('webhooks/deliveries')
  @ApiOperation({
    summary:
      'The delivery log: deliveries newest first, filtered by state, key, request and time (no bodies)',
  })
  @ApiOkResponse({ type: DeliveryListDto })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: a malformed filter or limit' })
  async listDeliveries(@Query() query: ListDeliveriesQueryDto): Promise<DeliveryListDto> {
    const deliveries = await this.deliveries.list({
      state: query.state,
      apiKeyId: query.apiKeyId,
      requestId: query.requestId,
      since: query.since === undefined ? undefined : parseIsoInstant(query.since)!,
      limit: query.limit,
    });
    return { deliveries };
  }

  @Get('webhooks/deliveries/:id')
  @ApiOperation({
    summary: 'One delivery: its body and every attempt (time, status code, latency, error, excerpt)',
  })
  @ApiParam(DELIVERY_PARAM)
  @ApiOkResponse({ type: DeliveryDetailsDto })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: neither a delivery id nor a webhook id' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no such delivery' })
  getDelivery(@Param() params: DeliveryIdParamDto): Promise<DeliveryDetailsDto> {
    return this.deliveries.get(params.id);
  }

  @Post('webhooks/deliveries/:id/redeliver')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Send a failed (or delivered) delivery again: same X-Webhook-Id and body, fresh signature, a new retry budget',
  })
  @ApiParam(DELIVERY_PARAM)
  @ApiOkResponse({ type: DeliverySummaryDto, description: 'The delivery, queued again (`state` pending)' })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT: neither a delivery id nor a webhook id' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no such delivery' })
  @ApiResponse({ status: 409, description: 'CONFLICT: the delivery is still pending (it will be retried)' })
  redeliver(@Param() params: DeliveryIdParamDto): Promise<DeliverySummaryDto> {
    return this.deliveries.redeliver(params.id);
  }

  @Post('webhooks/redeliver')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send again every failed delivery created since a time (optionally of one API key)',
  })
  @ApiOkResponse({ type: RedeliveredCountDto })
  @ApiResponse({
    status: 400,
    description: 'INVALID_INPUT: a missing or malformed `since`, or a bad apiKeyId',
  })
  async redeliverFailed(@Body() body: RedeliverFailedBodyDto): Promise<RedeliveredCountDto> {
    return {
      redelivered: await this.deliveries.redeliverFailed(parseIsoInstant(body.since)!, body.apiKeyId),
    };
  }
}
