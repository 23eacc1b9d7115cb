import { Body, Controller, Header, HttpCode, Post, Query } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Hex } from 'viem';
import { CurrentApiKey, AnonymousRateLimit, OptionalApiKey } from '../api-keys/api-key.decorators.js';
import type { AuthenticatedApiKey } from '../api-keys/api-keys.service.js';
import { AuthorizeBodyDto, AuthorizeQueryDto } from './authorize.dto.js';
import { AuthorizeService } from './authorize.service.js';
import { PriceRequestDto, QuoteRequestDto } from './quote-request.dto.js';
import type { PriceResponse, QuoteResponse } from './quote-response.js';
import { QuoteService } from './quote.service.js';

const QUOTE_ERRORS =
  'INVALID_INPUT, UNSUPPORTED_CHAIN, UNSUPPORTED_CURRENCY, INVALID_ADDRESS, AMOUNT_TOO_LOW, NO_ROUTE, ' +
  'ROUTE_TOO_LARGE, SWAP_AGGREGATOR_UNAVAILABLE, CHAIN_RPC_UNAVAILABLE, SPONSORSHIP_NOT_ALLOWED, UNSUPPORTED_OPTION ' +
  '(docs/errors.md)';

/**
 * Quotes (docs/quotes.md). The controller only maps HTTP: `QuoteService` prices, builds and records. POST routes
 * answer 200, as the spec and the Relay SDK expect. An API key is optional on quotes; with one, the request is
 * attributed to it (history, webhooks) and fee sponsorship is possible.
 */
@ApiTags('quotes')
@Controller()
export class QuotesController {
  constructor(
    private readonly quotes: QuoteService,
    private readonly authorizations: AuthorizeService,
  ) {}

  @Post('quote/v2')
  @HttpCode(200)
  @OptionalApiKey()
  @AnonymousRateLimit()
  @ApiHeader({
    name: 'x-api-key',
    required: false,
    description: 'Attributes the request; needed for sponsorship',
  })
  @ApiOperation({
    summary: 'An executable quote: steps, fees, details, order; records the request (`waiting`)',
  })
  @ApiOkResponse({ description: 'The quote (spec/api.md, "Quote response")' })
  @ApiResponse({ status: 400, description: QUOTE_ERRORS })
  @ApiResponse({ status: 401, description: 'UNAUTHORIZED: an x-api-key was sent but is invalid or revoked' })
  quote(
    @Body() body: QuoteRequestDto,
    @CurrentApiKey() apiKey: AuthenticatedApiKey | null,
  ): Promise<QuoteResponse> {
    return this.quotes.quote(body, apiKey);
  }

  @Post('price')
  @HttpCode(200)
  @Header('Deprecation', 'true')
  @Header('Link', '</quote/v2>; rel="successor-version"')
  @ApiOperation({
    summary: 'Deprecated (use POST /quote/v2): a lightweight quote, no steps, records nothing',
    deprecated: true,
  })
  @ApiOkResponse({ description: '`{fees, details}`' })
  @ApiResponse({ status: 400, description: QUOTE_ERRORS })
  price(@Body() body: PriceRequestDto): Promise<PriceResponse> {
    return this.quotes.price(body, null);
  }

  @Post('authorize')
  @HttpCode(200)
  @ApiOperation({ summary: "Records a withdrawal's signed nonce mapping (perps exchange A)" })
  @ApiOkResponse({ description: '`{message, requestId}`' })
  @ApiResponse({
    status: 400,
    description: 'INVALID_INPUT, INVALID_SIGNATURE (wrong signer, nonce, wallet or id), UNSUPPORTED_OPTION',
  })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no quote issued this request id' })
  authorize(
    @Body() body: AuthorizeBodyDto,
    @Query() query: AuthorizeQueryDto,
  ): Promise<{ message: string; requestId: string }> {
    return this.authorizations.authorize(body, query.signature as Hex);
  }
}
