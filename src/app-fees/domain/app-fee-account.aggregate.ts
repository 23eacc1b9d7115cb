import type { Type } from '@nestjs/common';
import type { IEventHandler } from '@nestjs/cqrs';
import { EventSourcedAggregate } from '../../event-store/event-sourced-aggregate.js';
import { type AppFeeAccountCommand, decide } from './app-fee-account-decide.js';
import type { AppFeeAccountEvent } from './app-fee-account-events.js';
import { type AppFeeAccountState, evolve, initialAppFeeAccountState } from './app-fee-account-state.js';

export const APP_FEE_ACCOUNT_PREFIX = 'app-fee-account-';

export const appFeeAccountStreamId = (address: string): string =>
  `${APP_FEE_ACCOUNT_PREFIX}${address.toLowerCase()}`;

/** Where an opened claim is recorded (its own stream, so opening claims never touches the account's). */
export const APP_FEE_CLAIM_PREFIX = 'app-fee-claim-';

export const appFeeClaimStreamId = (claimId: string): string =>
  `${APP_FEE_CLAIM_PREFIX}${claimId.toLowerCase()}`;

/** An app-fee recipient's account: decide() and evolve() behind @nestjs/cqrs's AggregateRoot. */
export class AppFeeAccountAggregate extends EventSourcedAggregate {
  state: AppFeeAccountState = initialAppFeeAccountState;
  readonly address: string;
  /** An account takes an event per credited request, for as long as it earns: loaded from a snapshot. */
  override readonly snapshots = { schema: 2, every: 50 };

  constructor(address: string) {
    super();
    this.address = address.toLowerCase();
  }

  get streamId(): string {
    return appFeeAccountStreamId(this.address);
  }

  override snapshotState(): AppFeeAccountState {
    return this.state;
  }

  override restoreSnapshot(state: unknown): void {
    this.state = state as AppFeeAccountState;
  }

  /** Decides on the current state and applies what it decided (throws AppFeeDomainError when not allowed). */
  handle(command: AppFeeAccountCommand): void {
    for (const { event, id } of decide(this.state, command, this.address)) this.applyWithId(event, id);
  }

  protected override getEventHandler(): Type<IEventHandler> {
    const handler = (event: AppFeeAccountEvent) => {
      this.state = evolve(this.state, event);
    };
    // AggregateRoot calls what this returns as a plain function; its declared type is a handler class.
    return handler as unknown as Type<IEventHandler>;
  }
}
