import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository } from '../../event-store/aggregate-repository.js';
import { inSpan } from '../../telemetry/tracing.js';
import { RequestAggregate } from '../domain/request.aggregate.js';
import { ExecuteRequestCommand, type ExecuteRequestResult } from './execute-request.command.js';

/**
 * Loads the request, decides, and appends with the revision it loaded (re-deciding on fresh state after a conflict).
 * A RequestDomainError propagates and nothing is appended.
 */
@CommandHandler(ExecuteRequestCommand)
export class ExecuteRequestHandler implements ICommandHandler<ExecuteRequestCommand, ExecuteRequestResult> {
  constructor(private readonly repository: AggregateRepository) {}

  execute({ requestId, command, metadata }: ExecuteRequestCommand): Promise<ExecuteRequestResult> {
    return inSpan(`command ${command.type}`, { 'ferry.request_id': requestId }, () =>
      this.run(requestId, command, metadata),
    );
  }

  private async run(
    requestId: string,
    command: ExecuteRequestCommand['command'],
    metadata: ExecuteRequestCommand['metadata'],
  ): Promise<ExecuteRequestResult> {
    let appended = 0;
    const aggregate = await this.repository.execute(
      () => new RequestAggregate(requestId),
      (request) => {
        request.handle(command);
        appended = request.getUncommittedEvents().length;
      },
      // A quote records a request whose id it has just made from a random salt: nothing to read first.
      { metadata: { command: command.type, ...metadata }, streamIsNew: command.type === 'RecordQuote' },
    );
    return { requestId, status: aggregate.state.status, revision: aggregate.revision, appended };
  }
}
