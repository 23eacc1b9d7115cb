import { Module } from '@nestjs/common';
import { RequestsV3Controller } from './requests-v3.controller.js';
import { RequestsV3Repository } from './requests-v3.repository.js';

/** Request history: `GET /requests/v3`, read from the requests-v3 projection only. */
@Module({
  controllers: [RequestsV3Controller],
  providers: [RequestsV3Repository],
})
export class HistoryModule {}
