import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Min } from 'class-validator';

const toInteger = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;

/** `POST /authorize`'s body: the nonce mapping the `authorize` step of a perps exchange A withdrawal posts. */
export class AuthorizeBodyDto {
  @ApiProperty({ enum: ['nonce-mapping'] })
  @IsIn(['nonce-mapping'], { message: '$property must be nonce-mapping' })
  type!: 'nonce-mapping';

  @ApiProperty({ type: Number, example: 1337 })
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  walletChainId!: number;

  @ApiProperty({ type: String })
  @IsString()
  @Matches(/^0x[a-fA-F0-9]{40}$/, { message: '$property must be an EVM address' })
  wallet!: string;

  @ApiProperty({ type: String })
  @IsString()
  @Matches(/^0x[a-fA-F0-9]{40}$/, { message: '$property must be an EVM address' })
  depositor!: string;

  @ApiProperty({ type: Number, description: 'The nonce the quote gave (a number or a string of digits)' })
  @Transform(toInteger)
  @IsInt({ message: '$property must be an integer' })
  @Min(0)
  nonce!: number;

  @ApiProperty({ type: String, description: 'The request id' })
  @IsString()
  @Matches(/^0x[a-fA-F0-9]{64}$/, { message: '$property must be a 32-byte hex request id' })
  id!: string;

  @ApiPropertyOptional({ type: Number, default: 1 })
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  signatureChainId!: number;
}

export class AuthorizeQueryDto {
  @ApiProperty({ type: String, description: 'The EIP-712 signature of the NonceMapping, 0x-prefixed hex' })
  @IsString()
  @Matches(/^0x[a-fA-F0-9]{130}$/, { message: '$property must be a 65-byte hex signature' })
  signature!: string;
}
