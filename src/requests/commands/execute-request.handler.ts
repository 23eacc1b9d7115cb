import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository } from '../../event-store/aggregate-repository.js';
import { RequestAggregate } from '../domain/request.aggregate.js';
import { ExecuteRequestCommand, type ExecuteRequestResult } from './execute-request.command.js';

/**
 * Loads the request, decides, and appends with the revision it loaded (re-deciding on fresh state after a conflict).
 * A RequestDomainError propagates and nothing is appended.
 */
@CommandHandler(ExecuteRequestCommand)
export class ExecuteRequestHandler implements ICommandHandler<ExecuteRequestCommand, ExecuteRequestResult> {
  constructor(private readonly repository: AggregateRepository) {}

  async execute({ requestId, command, metadata }: ExecuteRequestCommand): Promise<ExecuteRequestResult> {
    let appended = 0;
    const aggregate = await this.repository.execute(
      () => new RequestAggregate(requestId),
      (request) => {
        request.handle(command);
        appended = request.getUncommittedEvents().length;
      },
      { metadata: { command: command.type, ...metadata } },
    );
    return { requestId, status: aggregate.state.status, revision: aggregate.revision, appended };
  }
}
