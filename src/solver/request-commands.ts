import type { CommandBus } from '@nestjs/cqrs';
import { ExecuteRequestCommand } from '../requests/commands/execute-request.command.js';
import { RequestDomainError, type RequestCommand } from '../requests/domain/request-decide.js';

/** Records solver facts on requests through the command bus. */
export class RequestCommands {
  constructor(private readonly commands: CommandBus) {}

  /** True when the request took the command (or already had it); false when its state refuses it. */
  async record(requestId: string, command: RequestCommand): Promise<boolean> {
    try {
      await this.commands.execute(new ExecuteRequestCommand(requestId, command, { actor: 'solver' }));
      return true;
    } catch (error) {
      if (error instanceof RequestDomainError) return false;
      throw error;
    }
  }
}
