import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { TRADE_TYPES, type TradeType } from './domain/pricing/price-quote-input.js';

/** The spec's patterns (spec/api.md, POST /price). */
export const AMOUNT = /^[0-9]+$/;
export const SLIPPAGE_BPS = /^([0-9]{1,4}|10000)$/;
export const EVM_ADDRESS = /^0x[a-fA-F0-9]{40}$/;
export const HEX_DATA = /^0x[a-fA-F0-9]*$/;
export const BPS = /^[0-9]+$/;

/** Chain ids come as numbers; strings of digits are accepted too (some clients send them so). */
const toChainId = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;

const ChainIdField = (description: string) =>
  applyDecorators(
    ApiProperty({ type: Number, description, example: 8453 }),
    Transform(toChainId),
    IsInt({ message: '$property must be an integer chain id' }),
    Min(1, { message: '$property must be a positive chain id' }),
  );

/** An address or currency in its chain's format; the format itself is checked against the chain later. */
const AddressField = (description: string, required: boolean) =>
  applyDecorators(
    required
      ? ApiProperty({ type: String, description })
      : ApiPropertyOptional({ type: String, description }),
    ...(required ? [] : [IsOptional()]),
    IsString({ message: '$property must be a string' }),
    MinLength(1, { message: '$property must not be empty' }),
    MaxLength(128, { message: '$property must be at most 128 characters' }),
  );

const Flag = (description: string) =>
  applyDecorators(
    ApiPropertyOptional({ type: Boolean, description }),
    IsOptional(),
    IsBoolean({ message: '$property must be true or false' }),
  );

/** One destination call (`txs`). */
export class QuoteCallDto {
  @ApiProperty({ type: String, pattern: EVM_ADDRESS.source })
  @IsString()
  @Matches(EVM_ADDRESS, { message: '$property must match ^0x[a-fA-F0-9]{40}$' })
  to!: string;

  @ApiProperty({
    type: String,
    description: 'Smallest unit of the destination native currency',
    example: '0',
  })
  @IsString()
  @Matches(AMOUNT, { message: '$property must be an integer string (smallest unit)' })
  value!: string;

  @ApiProperty({ type: String, pattern: HEX_DATA.source })
  @IsString()
  @Matches(HEX_DATA, { message: '$property must match ^0x[a-fA-F0-9]*$' })
  @MaxLength(200_000)
  data!: string;
}

/** One `appFees` entry: basis points of the input to a claim address. */
export class AppFeeDto {
  @ApiProperty({
    type: String,
    pattern: EVM_ADDRESS.source,
    description: 'The claim address (EVM, on any chain)',
  })
  @IsString()
  @Matches(EVM_ADDRESS, { message: '$property must match ^0x[a-fA-F0-9]{40}$' })
  recipient!: string;

  @ApiProperty({ type: String, pattern: BPS.source, description: 'Basis points of the input (100 = 1%)' })
  @IsString()
  @Matches(BPS, { message: '$property must be an integer string of basis points' })
  @MaxLength(6, { message: '$property must be at most 10000 basis points' })
  fee!: string;
}

/** The body of `POST /price` (and the shared part of `POST /quote/v2`). */
export class PriceRequestDto {
  @AddressField('Address depositing on the origin chain (perps exchange B: the account index)', true)
  user!: string;

  @AddressField('Receives the output; defaults to `user`', false)
  recipient?: string;

  @ChainIdField('Origin chain id')
  originChainId!: number;

  @ChainIdField('Destination chain id')
  destinationChainId!: number;

  @AddressField('Input currency address on the origin chain', true)
  originCurrency!: string;

  @AddressField('Output currency address on the destination chain', true)
  destinationCurrency!: string;

  @ApiProperty({ type: String, pattern: AMOUNT.source, description: 'Smallest unit', example: '1000000' })
  @IsString({ message: '$property must be a string of digits' })
  @Matches(AMOUNT, { message: '$property must match ^[0-9]+$ (smallest unit)' })
  @MaxLength(78, { message: '$property must fit in 256 bits' })
  amount!: string;

  @ApiProperty({ type: String, enum: TRADE_TYPES })
  @IsIn(TRADE_TYPES, { message: `$property must be one of: ${TRADE_TYPES.join(', ')}` })
  tradeType!: TradeType;

  @ApiPropertyOptional({ type: [QuoteCallDto], description: 'Destination calls' })
  @IsOptional()
  @IsArray({ message: '$property must be an array' })
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => QuoteCallDto)
  txs?: QuoteCallDto[];

  @ApiPropertyOptional({ type: String })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  referrer?: string;

  @AddressField(
    'Refund address on failure; default the recipient where valid on the origin chain, else the user',
    false,
  )
  refundTo?: string;

  @Flag('Deprecated: refunds always happen on the origin chain')
  refundOnOrigin?: boolean;

  @Flag('Canonical+ bridging: trades speed for liquidity')
  useExternalLiquidity?: boolean;

  @Flag('Enables specific fallback routes')
  useFallbacks?: boolean;

  @Flag('Gasless deposit by EIP-3009 authorization (currencies that support it, such as USDC)')
  usePermit?: boolean;

  @Flag('Deposit to a per-request address (native-currency bridges only)')
  useDepositAddress?: boolean;

  @ApiPropertyOptional({
    type: String,
    pattern: SLIPPAGE_BPS.source,
    description: 'Basis points, 0 to 10000',
  })
  @IsOptional()
  @IsString({ message: '$property must be a string of basis points' })
  @Matches(SLIPPAGE_BPS, { message: '$property must be 0 to 10000 basis points (integer string)' })
  slippageTolerance?: string;

  @ApiPropertyOptional({ type: [AppFeeDto] })
  @IsOptional()
  @IsArray({ message: '$property must be an array' })
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => AppFeeDto)
  appFees?: AppFeeDto[];
}

/** The body of `POST /quote/v2`: `/price`'s fields plus the quote-only options. */
export class QuoteRequestDto extends PriceRequestDto {
  @ApiPropertyOptional({
    type: Number,
    description:
      'Hops in SVM-origin aggregator swap routing (recommended 4, then 3); no effect while no aggregator is configured (docs/svm.md)',
  })
  @IsOptional()
  @IsInt({ message: '$property must be an integer' })
  @Min(1)
  @Max(16)
  maxRouteLength?: number;

  @ApiPropertyOptional({
    type: [String],
    description:
      'Restricts origin swap sources (SVM: `jupiter`); no effect while no aggregator is configured (docs/svm.md)',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  includedOriginSwapSources?: string[];

  @ApiPropertyOptional({
    type: String,
    enum: ['v2'],
    description: 'Mandatory (`v2`) for perps exchange A withdrawals',
  })
  @IsOptional()
  @IsIn(['v2'], { message: '$property must be v2' })
  protocolVersion?: string;

  @Flag('Sponsor every fee component (API keys with fee sponsorship)')
  subsidizeFees?: boolean;

  @ApiPropertyOptional({
    type: [String],
    description: 'Fee components to sponsor: execution, swap, relay, app, rent',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(5)
  @IsIn(['execution', 'swap', 'relay', 'platform', 'app', 'rent'], {
    each: true,
    message: '$property items must be execution, swap, relay, app or rent',
  })
  sponsoredFeeComponents?: string[];

  @ApiPropertyOptional({
    type: String,
    enum: ['strict', 'open'],
    description:
      'With useDepositAddress: `strict` (default: exactly the quoted amount, before the quote expires) or `open` (at least the quoted amount; the surplus is given back). Any wallet may pay either; docs/deposit-addresses.md',
  })
  @IsOptional()
  @IsIn(['strict', 'open'], { message: '$property must be strict or open' })
  depositAddressType?: 'strict' | 'open';

  @AddressField(
    'With useDepositAddress: the origin-chain account that may pull funds Ferry has not swept from the address, by calling the factory (default refundTo, else user)',
    false,
  )
  recoveryAddress?: string;
}
