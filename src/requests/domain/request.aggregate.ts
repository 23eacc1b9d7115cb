import type { Type } from '@nestjs/common';
import type { IEventHandler } from '@nestjs/cqrs';
import { EventSourcedAggregate } from '../../event-store/event-sourced-aggregate.js';
import { decide, type RequestCommand } from './request-decide.js';
import type { RequestEvent } from './request-events.js';
import { evolve, initialRequestState, type RequestState } from './request-state.js';

export const requestStreamId = (requestId: string): string => `request-${requestId.toLowerCase()}`;

/** The Request aggregate: decide() and evolve() behind @nestjs/cqrs's AggregateRoot. */
export class RequestAggregate extends EventSourcedAggregate {
  state: RequestState = initialRequestState;

  constructor(readonly requestId: string) {
    super();
  }

  get streamId(): string {
    return requestStreamId(this.requestId);
  }

  /** Decides on the current state and applies what it decided (throws RequestDomainError when not allowed). */
  handle(command: RequestCommand): void {
    for (const { event, id } of decide(this.state, command)) {
      if (id) this.applyWithId(event, id);
      else this.apply(event);
    }
  }

  /** Every event goes through the one pure evolve(), rather than an `on<Type>` method each. */
  protected override getEventHandler(): Type<IEventHandler> {
    const handler = (event: RequestEvent) => {
      this.state = evolve(this.state, event);
    };
    // AggregateRoot calls what this returns as a plain function; its declared type is a handler class.
    return handler as unknown as Type<IEventHandler>;
  }
}
