import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsPositive, IsString, Matches, MaxLength } from 'class-validator';

const EVM_ADDRESS = /^0x[a-fA-F0-9]{40}$/;

/** `POST /app-fees/{address}/claim`: where and in what to be paid. */
export class ClaimAppFeesDto {
  @ApiProperty({ description: 'The chain to be paid on (free on the base chain, see docs/app-fees.md)' })
  @Type(() => Number)
  @IsInt({ message: '$property must be an integer chain id' })
  @IsPositive({ message: '$property must be a positive chain id' })
  chainId!: number;

  @ApiProperty({ description: 'The currency to be paid in, an address on that chain (free: the base USDC)' })
  @IsString()
  @MaxLength(100)
  currency!: string;

  @ApiPropertyOptional({ description: 'Who receives the payout; defaults to the claim address' })
  @IsOptional()
  @IsString()
  @Matches(EVM_ADDRESS, { message: '$property must match ^0x[a-fA-F0-9]{40}$' })
  recipient?: string;
}
