import { ExecuteRequestHandler } from './execute-request.handler.js';

/** The requests module's command handlers; adding one never edits the module. */
export const requestCommandHandlers = [ExecuteRequestHandler];
