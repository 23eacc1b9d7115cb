import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';

/** `POST /execute/permits`: what a signature step posts (`{kind, requestId}`), with `?signature=`. */
export class ExecutePermitBodyDto {
  @ApiProperty({ enum: ['permit', 'claim', 'request'], description: '`permit`: a usePermit deposit' })
  @IsIn(['permit', 'claim', 'request'], { message: '$property must be permit, claim or request' })
  kind!: 'permit' | 'claim' | 'request';

  @ApiProperty({ description: 'The request id of the quote' })
  @IsString()
  @Matches(/^0x[0-9a-fA-F]{64}$/, { message: '$property must be a 32-byte hex request id' })
  requestId!: string;
}

export class ExecutePermitQueryDto {
  @ApiProperty({ description: 'The signature the step asked for, 0x-prefixed hex' })
  @IsString()
  @Matches(/^0x[0-9a-fA-F]{130}$/, { message: '$property must be a 65-byte hex signature' })
  signature!: string;
}
