import { PerpsAActivation } from './perps-a-activation.js';
import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ApiKeysModule } from '../api-keys/api-keys.module.js';
import { AppFeesModule } from '../app-fees/app-fees.module.js';
import { AuthorizeService } from './authorize.service.js';
import { QuotesController } from './quotes.controller.js';
import { QuoteService } from './quote.service.js';

/** `POST /quote/v2`, `POST /price`, `POST /authorize`. */
@Module({
  imports: [CqrsModule, ApiKeysModule, AppFeesModule],
  controllers: [QuotesController],
  providers: [QuoteService, AuthorizeService, PerpsAActivation],
})
export class QuotesModule {}
