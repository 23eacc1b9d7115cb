import { Module, type OnModuleInit } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { EventRegistry } from '../event-store/event-registry.js';
import { requestCommandHandlers } from './commands/index.js';
import { REQUEST_EVENTS } from './domain/request-events.js';
import { DeadlineSweeper } from './sweeper/deadline-sweeper.js';

/** The Request aggregate: its events, its commands (through the command bus), and what reads it. */
@Module({
  imports: [CqrsModule],
  providers: [...requestCommandHandlers, DeadlineSweeper],
  exports: [DeadlineSweeper],
})
export class RequestsModule implements OnModuleInit {
  constructor(private readonly registry: EventRegistry) {}

  onModuleInit(): void {
    this.registry.register(...REQUEST_EVENTS);
  }
}
