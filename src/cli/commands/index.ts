import type { AppConfig } from '../../config/app-config.js';
import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import { projections } from '../../../projections/index.js';
import type { CliOutput } from '../output.js';
import { auditProjectionCommand } from './audit-projection.command.js';
import { projectionStatusCommand } from './projection-status.command.js';
import { rebuildProjectionCommand } from './rebuild-projection.command.js';
import { replayStream } from './replay-stream.command.js';

/** What a command runs with: the configuration, the opened database and event store, and where to write. */
export interface CliContext {
  readonly config: AppConfig;
  readonly db: Database;
  readonly store: EventStore;
  readonly output: CliOutput;
}

export interface CliCommand {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** The command line, e.g. `events:replay <streamId>`. */
  readonly usage: string;
  /** One line for the help. */
  readonly description: string;
  /** How many positional arguments it takes (exactly). */
  readonly arity: number;
  /** Resolves to the process exit code. */
  run(context: CliContext, args: readonly string[]): Promise<number>;
}

export const commands: readonly CliCommand[] = [
  {
    name: 'events:replay',
    usage: 'events:replay <streamId>',
    description: 'print each event of a stream and the state after it',
    arity: 1,
    run: ({ store, output }, [streamId]) => replayStream({ store }, streamId, output),
  },
  {
    name: 'projections:status',
    usage: 'projections:status',
    description: 'generations, checkpoints and lag of every projection',
    arity: 0,
    run: ({ db, store, output }) => projectionStatusCommand({ db, store, projections }, output),
  },
  {
    name: 'projections:rebuild',
    usage: 'projections:rebuild <name>',
    description: 'rebuild a projection blue/green from the start of the log',
    arity: 1,
    run: ({ config, db, store, output }, [name]) =>
      rebuildProjectionCommand(
        { db, store, projections, batchSize: config.projections.batchSize },
        name,
        output,
      ),
  },
  {
    name: 'projections:audit',
    aliases: ['audit'],
    usage: 'projections:audit <name>',
    description: 'compare every live row with a rebuild (exit 2 on differences)',
    arity: 1,
    run: ({ config, db, store, output }, [name]) =>
      auditProjectionCommand(
        { db, store, projections, batchSize: config.projections.batchSize },
        name,
        output,
      ),
  },
];

export function findCommand(name: string): CliCommand | undefined {
  return commands.find((command) => command.name === name || command.aliases?.includes(name));
}

/** The help text: every command on one line. */
export function usageLines(): string[] {
  const entries: [string, string][] = [
    ['help', 'show this help (also --help, or no command)'],
    ...commands.map((command): [string, string] => [
      command.usage + (command.aliases?.length ? ` (or ${command.aliases.join(', ')})` : ''),
      command.description,
    ]),
  ];
  const width = Math.max(...entries.map(([usage]) => usage.length));
  return [
    'Usage: npm run cli -- <command> [args]',
    '',
    'Commands:',
    ...entries.map(([usage, description]) => `  ${usage.padEnd(width)}  ${description}`),
    '',
    'Configuration comes from the environment (DATABASE_URL, EVENTSTORE_URL, ENVIRONMENT, ...), as for the server.',
  ];
}
