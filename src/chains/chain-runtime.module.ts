import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppFeesModule } from '../app-fees/app-fees.module.js';
import { ExecuteController } from '../execute/execute.controller.js';
import { ExecuteService } from '../execute/execute.service.js';
import { ChainRuntime } from './chain-runtime.service.js';
import { TransactionsController } from './transactions.controller.js';

/** The chain watcher, the solver, `POST /transactions/index` and the execute path (`POST /execute/permits`). */
@Module({
  imports: [CqrsModule, AppFeesModule],
  controllers: [TransactionsController, ExecuteController],
  providers: [ChainRuntime, ExecuteService],
  exports: [ChainRuntime],
})
export class ChainRuntimeModule {}
