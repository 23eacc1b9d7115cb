import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsString, Matches, Min } from 'class-validator';
import type { Hash } from 'viem';
import { ApiError } from '../common/http/api-error.js';
import { ChainRegistry } from './chain-registry.js';
import { ChainRuntime } from './chain-runtime.service.js';

export class IndexTransactionDto {
  @ApiProperty({ description: 'Chain id (a number, or a string of digits)', example: 31337 })
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value,
  )
  @IsInt({ message: '$property must be an integer chain id' })
  @Min(1)
  chainId!: number;

  @ApiProperty({ description: 'The transaction hash', example: `0x${'ab'.repeat(32)}` })
  @IsString()
  @Matches(/^0x[0-9a-fA-F]{64}$/, { message: '$property must be a 32-byte hex transaction hash' })
  txHash!: string;
}

/** `POST /transactions/index`: a client's hint that a deposit transaction exists; indexed at once. No key needed. */
@ApiTags('chains')
@Controller('transactions')
export class TransactionsController {
  constructor(
    private readonly chains: ChainRegistry,
    private readonly runtime: ChainRuntime,
  ) {}

  @Post('index')
  @HttpCode(200)
  @ApiOperation({ summary: 'Index a deposit transaction now instead of at the next watcher round' })
  @ApiOkResponse({ description: '`{message, deposits, final}`' })
  @ApiResponse({ status: 400, description: 'INVALID_INPUT, UNSUPPORTED_CHAIN' })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: the chain has no such transaction (yet)' })
  @ApiResponse({ status: 503, description: 'CHAIN_NOT_CONFIGURED: the chain has no RPC here' })
  async index(
    @Body() body: IndexTransactionDto,
  ): Promise<{ message: string; deposits: number; final: boolean }> {
    const chain = this.chains.chain(body.chainId);
    if (chain.vmType !== 'evm' || !chain.rpcUrl) {
      throw new ApiError('CHAIN_NOT_CONFIGURED', `Chain ${chain.id} cannot be read here`, {
        chainId: chain.id,
        variable: chain.rpcUrlVariable,
      });
    }
    let result;
    try {
      result = await this.runtime.watcher.indexTransaction(chain, body.txHash as Hash);
    } catch (error) {
      if ((error as { name?: string }).name === 'TransactionReceiptNotFoundError') {
        throw new ApiError('NOT_FOUND', `No transaction ${body.txHash} on chain ${chain.id} (yet)`);
      }
      throw error;
    }
    return { message: 'Indexed', ...result };
  }
}
