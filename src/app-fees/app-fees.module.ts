import { Module, type OnModuleInit } from '@nestjs/common';
import { EventRegistry } from '../event-store/event-registry.js';
import { AppFeePayoutsProvider } from './app-fee-payouts.provider.js';
import { AppFeesController } from './app-fees.controller.js';
import { AppFeesService } from './app-fees.service.js';
import { AppFeesWorker } from './app-fees.worker.js';
import { APP_FEE_ACCOUNT_EVENTS } from './domain/app-fee-account-events.js';

/** App-fee accounts: accrual from fills, balances, claims and their payouts (docs/app-fees.md). */
@Module({
  controllers: [AppFeesController],
  providers: [AppFeesService, AppFeePayoutsProvider, AppFeesWorker],
  exports: [AppFeesService],
})
export class AppFeesModule implements OnModuleInit {
  constructor(private readonly registry: EventRegistry) {}

  onModuleInit(): void {
    this.registry.register(...APP_FEE_ACCOUNT_EVENTS);
  }
}
