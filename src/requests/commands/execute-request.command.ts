import type { ICommand } from '@nestjs/cqrs';
import type { RequestCommand } from '../domain/request-decide.js';

/** Runs one request command (`ConfirmDeposit`, `SubmitFill`, …) against the request's stream. */
export class ExecuteRequestCommand implements ICommand {
  constructor(
    readonly requestId: string,
    readonly command: RequestCommand,
    /** Stored with each event appended: who or what asked (`{actor: 'chain-watcher'}`), correlation ids. */
    readonly metadata: Readonly<Record<string, unknown>> = {},
  ) {}
}

export interface ExecuteRequestResult {
  readonly requestId: string;
  readonly status: string;
  readonly revision: bigint;
  /** The number of events the command appended (0 when it restated a fact already recorded). */
  readonly appended: number;
}
