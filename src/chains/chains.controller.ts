import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChainRegistry } from './chain-registry.js';
import { ChainsResponseDto, toChainsResponse } from './chains.response.dto.js';

@ApiTags('chains')
@Controller('chains')
export class ChainsController {
  /** The registry never changes while the process runs, so the body is built once. */
  private readonly body: ChainsResponseDto;

  constructor(registry: ChainRegistry) {
    this.body = toChainsResponse(registry);
  }

  @Get()
  @ApiOperation({
    summary: 'Supported chains and their currencies',
    description:
      'No key needed. Every chain carries its native `currency`, its other currencies, the solver address and the ' +
      'depository. RPC URLs are public ones only (see docs/chains.md).',
  })
  @ApiOkResponse({ type: ChainsResponseDto })
  list(): ChainsResponseDto {
    return this.body;
  }
}
