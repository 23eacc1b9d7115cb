import { type DynamicModule, Global, Module } from '@nestjs/common';
import { CLOCK, type Clock, systemClock } from './clock.js';

/** Provides the one clock every module decides with (tests pass a ManualClock through createApp). */
@Global()
@Module({})
export class ClockModule {
  static forRoot(clock: Clock = systemClock): DynamicModule {
    return { module: ClockModule, providers: [{ provide: CLOCK, useValue: clock }], exports: [CLOCK] };
  }
}
