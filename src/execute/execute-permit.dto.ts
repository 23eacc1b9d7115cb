import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Matches, MaxLength } from 'class-validator';

/** `POST /execute/permits`: what a signature step posts (`{kind, requestId}`), with `?signature=`. */
export class ExecutePermitBodyDto {
  @ApiProperty({
    enum: ['permit', 'claim', 'request'],
    description:
      '`permit`: a usePermit deposit; `claim` (or `request`, as the spec also shows): an app-fee claim',
  })
  @IsIn(['permit', 'claim', 'request'], { message: '$property must be permit, claim or request' })
  kind!: 'permit' | 'claim' | 'request';

  @ApiProperty({ description: 'The request id of the quote, or the claim id' })
  @IsString()
  @Matches(/^0x[0-9a-fA-F]{64}$/, { message: '$property must be a 32-byte hex request id' })
  requestId!: string;
}

export class ExecutePermitQueryDto {
  @ApiProperty({
    description:
      'The signature the step asked for, 0x-prefixed hex: 65 bytes from an EOA; a contract wallet (ERC-1271) may use another length',
  })
  @IsString()
  // Contract wallets sign in their own formats (several owners' signatures, ERC-6492 wrappers): any whole bytes.
  @MaxLength(2 + 2 * 4096, { message: '$property must be at most 4096 bytes' })
  @Matches(/^0x(?:[0-9a-fA-F]{2})+$/, { message: '$property must be a hex signature' })
  signature!: string;
}
