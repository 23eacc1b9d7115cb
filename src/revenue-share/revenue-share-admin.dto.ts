import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, ValidateIf, Matches } from 'class-validator';

export class SetRevenueShareBodyDto {
  @ApiPropertyOptional({
    description: 'The integrator completed KYB verification (recorded by the operator)',
  })
  @IsOptional()
  @IsBoolean({ message: '$property must be true or false' })
  readonly kybVerified?: boolean;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'The EVM address whose app-fee balance receives the share; null clears it',
    example: '0x00000000000000000000000000000000000000a1',
  })
  @ValidateIf((_object, value) => value !== null && value !== undefined)
  @Matches(/^0x[0-9a-fA-F]{40}$/, {
    message: '$property must be an EVM address (0x and 40 hex digits) or null',
  })
  readonly payoutAddress?: string | null;
}

/** A key's revenue share as operators see it. */
export class RevenueShareDto {
  @ApiProperty({ format: 'uuid' })
  readonly apiKeyId!: string;

  @ApiProperty({ description: 'The displayed prefix of the key (`fk_` + 7 characters)' })
  readonly keyPrefix!: string;

  @ApiProperty()
  readonly label!: string;

  @ApiProperty()
  readonly kybVerified!: boolean;

  @ApiProperty({ type: String, nullable: true })
  readonly payoutAddress!: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'USD of the key’s requests that succeeded in the last 30 days (null while first built)',
  })
  readonly trailingVolumeUsd!: string | null;

  @ApiProperty({ type: String, nullable: true, enum: ['10M-100M', '100M-1B'] })
  readonly tier!: string | null;

  @ApiProperty({ description: 'KYB verified, a payout address and a tier: successful requests earn a share' })
  readonly earning!: boolean;
}

export class RevenueShareListDto {
  @ApiProperty({ type: [RevenueShareDto] })
  readonly apiKeys!: RevenueShareDto[];
}
