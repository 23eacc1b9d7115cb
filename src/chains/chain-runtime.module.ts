import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AppFeesModule } from '../app-fees/app-fees.module.js';
import { ExecuteController } from '../execute/execute.controller.js';
import { ExecuteService } from '../execute/execute.service.js';
import { ChainRuntime } from './chain-runtime.service.js';
import { depositAddressCommandHandlers } from './deposit-addresses/index.js';
import { TransactionsController } from './transactions.controller.js';

/** The chain watcher (and the deposit addresses it watches), the solver, `POST /transactions/index` and the execute path (`POST /execute/permits`). */
@Module({
  imports: [CqrsModule, AppFeesModule],
  controllers: [TransactionsController, ExecuteController],
  providers: [ChainRuntime, ExecuteService, ...depositAddressCommandHandlers],
  exports: [ChainRuntime],
})
export class ChainRuntimeModule {}
