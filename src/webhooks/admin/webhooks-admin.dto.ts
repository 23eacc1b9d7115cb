import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import type { ApiKeySummary } from '../../api-keys/api-keys.service.js';
import { REQUEST_ID_PATTERN } from '../../requests/status/request-status.dto.js';
import type {
  DeliveryAttempt,
  DeliveryDetails,
  DeliveryState,
  DeliverySummary,
} from '../delivery/webhook-deliveries.service.js';
import { WEBHOOK_URL_MAX_LENGTH } from '../webhook-endpoint-check.js';
import { ISO_INSTANT_HINT, parseIsoInstant } from './iso-instant.js';

export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'delivered', 'failed'];
export const MAX_DELIVERIES_LIMIT = 1000;
/** A delivery named by its id (UUID) or its `X-Webhook-Id` (`whk_` + 32 hex digits). */
export const DELIVERY_ID_PATTERN =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|whk_[0-9a-f]{32})$/i;

/** An ISO 8601 instant (see `parseIsoInstant`). */
const IsIsoInstant = () =>
  ValidateBy({
    name: 'isIsoInstant',
    validator: {
      validate: (value: unknown) => parseIsoInstant(value) !== null,
      defaultMessage: () => `$property must be ${ISO_INSTANT_HINT}`,
    },
  });

const SINCE_DESCRIPTION =
  'Only deliveries created at or after this instant: an ISO 8601 date (midnight UTC) or date-time with a time zone';

export class SetWebhookBodyDto {
  @ApiProperty({
    description:
      'The HTTPS endpoint `request.status.updated` events are POSTed to. Its host must resolve to public addresses ' +
      'only (see docs/webhooks.md, Target policy).',
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    example: 'https://hooks.example.com/ferry',
  })
  @IsString({ message: '$property must be a string' })
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  readonly url!: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      "Custom headers sent with every delivery (at most 20), e.g. the receiver's own authorization. They cannot " +
      'set X-Signature-Timestamp, X-Signature-SHA256, X-Webhook-Id, Content-Type, Host, Content-Length or the ' +
      'hop-by-hop headers. Their values are never shown again.',
    example: { Authorization: 'Bearer receiver-token' },
  })
  @IsOptional()
  @IsObject({ message: '$property must be an object of header names to values' })
  readonly headers?: Record<string, string>;
}

/** A key's webhook endpoint as operators see it: header names only (their values may be secrets). */
export class WebhookSettingsDto {
  @ApiProperty({ format: 'uuid' })
  readonly apiKeyId!: string;

  @ApiProperty({ description: 'The displayed prefix of the key (`fk_` + 7 characters)' })
  readonly keyPrefix!: string;

  @ApiProperty()
  readonly label!: string;

  @ApiProperty({ type: String, nullable: true, description: 'The endpoint, or null when none is configured' })
  readonly url!: string | null;

  @ApiProperty({
    type: [String],
    description: 'The names of the custom headers, sorted (their values are never shown)',
  })
  readonly headerNames!: readonly string[];

  @ApiProperty({
    description: 'Deliveries are stopped (the endpoint answered 410 Gone); setting it again re-enables',
  })
  readonly disabled!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  readonly disabledAt!: Date | null;

  @ApiProperty({ type: String, nullable: true })
  readonly disabledReason!: string | null;
}

export function toWebhookSettings(key: ApiKeySummary): WebhookSettingsDto {
  return {
    apiKeyId: key.id,
    keyPrefix: key.keyPrefix,
    label: key.label,
    url: key.webhookUrl,
    // jsonb keeps no key order: sorted, so the answer is stable.
    headerNames: [...key.webhookHeaderNames].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())),
    disabled: key.webhookDisabledAt !== null,
    disabledAt: key.webhookDisabledAt,
    disabledReason: key.webhookDisabledReason,
  };
}

export class ListDeliveriesQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATES, description: 'Only deliveries in this state' })
  @IsOptional()
  @IsIn(DELIVERY_STATES, { message: `$property must be one of: ${DELIVERY_STATES.join(', ')}` })
  readonly state?: DeliveryState;

  @ApiPropertyOptional({ format: 'uuid', description: "Only this API key's deliveries (its id)" })
  @IsOptional()
  @IsUUID('all', { message: '$property must be an API key id (UUID)' })
  readonly apiKeyId?: string;

  @ApiPropertyOptional({ pattern: REQUEST_ID_PATTERN.source, description: "Only this request's deliveries" })
  @IsOptional()
  @IsString({ message: '$property must be a single string' })
  @Matches(REQUEST_ID_PATTERN, { message: '$property must be 0x followed by 64 hex digits' })
  readonly requestId?: string;

  @ApiPropertyOptional({ type: String, description: SINCE_DESCRIPTION, example: '2026-05-01T00:00:00Z' })
  @IsOptional()
  @IsIsoInstant()
  readonly since?: string;

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: MAX_DELIVERIES_LIMIT, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: '$property must be an integer' })
  @Min(1)
  @Max(MAX_DELIVERIES_LIMIT)
  readonly limit?: number;
}

export class DeliveryIdParamDto {
  @ApiProperty({ description: 'The delivery id (UUID) or its X-Webhook-Id (`whk_…`)' })
  @IsString()
  @Matches(DELIVERY_ID_PATTERN, { message: '$property must be a delivery id (UUID) or a webhook id (whk_…)' })
  readonly id!: string;
}

export class RedeliverFailedBodyDto {
  @ApiProperty({ type: String, description: SINCE_DESCRIPTION, example: '2026-05-01T00:00:00Z' })
  @IsIsoInstant()
  readonly since!: string;

  @ApiPropertyOptional({ format: 'uuid', description: "Only this API key's failed deliveries" })
  @IsOptional()
  @IsUUID('all', { message: '$property must be an API key id (UUID)' })
  readonly apiKeyId?: string;
}

export class RedeliveredCountDto {
  @ApiProperty({ description: 'How many failed deliveries were queued again' })
  readonly redelivered!: number;
}

export class DeliverySummaryDto implements DeliverySummary {
  @ApiProperty({ format: 'uuid' })
  readonly id!: string;

  @ApiProperty({ description: 'The X-Webhook-Id header: the same on every attempt and redelivery' })
  readonly webhookId!: string;

  @ApiProperty({ format: 'uuid' })
  readonly apiKeyId!: string;

  @ApiProperty()
  readonly requestId!: string;

  @ApiProperty({ description: 'The request status the event announces' })
  readonly status!: string;

  @ApiProperty({ enum: DELIVERY_STATES })
  readonly state!: DeliveryState;

  @ApiProperty({ description: 'Attempts made since it was queued (or last redelivered)' })
  readonly attempts!: number;

  @ApiProperty({ type: String, format: 'date-time' })
  readonly createdAt!: Date;

  @ApiProperty({ type: String, format: 'date-time' })
  readonly nextAttemptAt!: Date;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  readonly lastAttemptAt!: Date | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  readonly deliveredAt!: Date | null;

  @ApiProperty({ type: Number, nullable: true, description: 'HTTP status of the last attempt' })
  readonly lastStatusCode!: number | null;

  @ApiProperty({ type: String, nullable: true, description: 'Why the last attempt failed' })
  readonly lastError!: string | null;
}

export class DeliveryAttemptDto implements DeliveryAttempt {
  @ApiProperty({ description: '1 for the first attempt' })
  readonly attempt!: number;

  @ApiProperty({ type: String, format: 'date-time' })
  readonly attemptedAt!: Date;

  @ApiProperty({ type: Number, nullable: true, description: 'The HTTP status, null when none came back' })
  readonly statusCode!: number | null;

  @ApiProperty()
  readonly latencyMs!: number;

  @ApiProperty({ type: String, nullable: true })
  readonly error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "At most 1 KB of the receiver's answer" })
  readonly responseExcerpt!: string | null;
}

export class DeliveryDetailsDto extends DeliverySummaryDto implements DeliveryDetails {
  @ApiProperty({ description: 'The body as sent (serialised once; every attempt sends these bytes)' })
  readonly body!: string;

  @ApiProperty({ type: [DeliveryAttemptDto] })
  readonly attemptLog!: readonly DeliveryAttemptDto[];
}

export class DeliveryListDto {
  @ApiProperty({ type: [DeliverySummaryDto], description: 'Newest first; no bodies' })
  readonly deliveries!: readonly DeliverySummaryDto[];
}
