import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

const HASH = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/**
 * `logIndex?` is absent or an integer, `depositId?` absent or an order id: IsOptional would also let `null` through,
 * and a null log index then matched no event (ATTESTATION_MISMATCH after a chain read) instead of being refused as
 * input, and a null deposit id was taken for "any deposit of the transaction".
 */
const unlessAbsent = ValidateIf((_object: object, value: unknown) => value !== undefined);
const LOG_INDEX = { message: '$property must be an integer log index (omit it to match any)' };
const chainIdOf = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;

/** What every attestation request names: the chain and the transaction. */
export class AttestTransactionDto {
  @ApiProperty({ description: 'Chain id (a number, or a string of digits)', example: 31337 })
  @Transform(chainIdOf)
  @IsInt({ message: '$property must be an integer chain id' })
  @Min(1)
  chainId!: number;

  @ApiProperty({
    description: 'The transaction hash (EVM: 32 bytes, 0x-prefixed)',
    example: `0x${'ab'.repeat(32)}`,
  })
  @IsString()
  @Matches(HASH, { message: '$property must be a 32-byte hex transaction hash' })
  transactionId!: string;

  @ApiPropertyOptional({
    description: 'Also ask the configured peers (PEERS) and add the signatures of those that agree',
    default: false,
  })
  @IsOptional()
  @IsBoolean({ message: '$property must be true or false' })
  requestPeerSignatures?: boolean;
}

export class AttestDepositDto extends AttestTransactionDto {
  @ApiPropertyOptional({
    description: "The deposit's order id (Ferry's request id), when the transaction holds several",
  })
  @unlessAbsent
  @IsString()
  @Matches(HASH, { message: '$property must be a 32-byte hex order id' })
  depositId?: string;

  @ApiPropertyOptional({ description: "The deposit event's log index, when the transaction holds several" })
  @unlessAbsent
  @IsInt(LOG_INDEX)
  @Min(0)
  @Max(1_000_000)
  logIndex?: number;
}

export class AttestWithdrawalDto extends AttestTransactionDto {
  @ApiPropertyOptional({
    description: "The withdrawal event's log index, when the transaction holds several",
  })
  @unlessAbsent
  @IsInt(LOG_INDEX)
  @Min(0)
  @Max(1_000_000)
  logIndex?: number;
}

/** A fill or a refund: the order's terms the transaction must meet. */
export class AttestPaymentDto extends AttestTransactionDto {
  @ApiProperty({ description: 'The order id the payment must be tagged with (Ferry: the request id)' })
  @IsString()
  @Matches(HASH, { message: '$property must be a 32-byte hex order id' })
  orderId!: string;

  @ApiProperty({ description: 'Who must be paid' })
  @IsString()
  @Matches(ADDRESS, { message: '$property must be a 20-byte hex address' })
  recipient!: string;

  @ApiProperty({
    description: 'What must be paid: a token address, or the zero address for the native currency',
  })
  @IsString()
  @Matches(ADDRESS, { message: '$property must be a 20-byte hex address' })
  currency!: string;

  @ApiProperty({
    description: 'The least the payment must be, in the smallest unit (decimal string)',
    example: '1000',
  })
  @IsString()
  @Matches(/^(0|[1-9][0-9]{0,77})$/, { message: '$property must be a decimal integer string' })
  minimumAmount!: string;
}

/** `POST /attestations/withdrawal-initiation/v1` and `…/withdrawal-initiated/v1`: validated, then refused. */
export class AttestWithdrawalFlowDto extends AttestTransactionDto {}
