import type { AppConfig } from '../../config/app-config.js';
import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import type { CliOutput } from '../output.js';
import {
  type OptionSpecs,
  optionsSummary,
  parseCommandLine,
  type ParsedCommandLine,
  type PositionalSpec,
  positionalProblem,
} from '../command-line.js';

/** What a command runs with: the configuration, the opened database and event store, and where to write. */
export interface CliContext {
  readonly config: AppConfig;
  readonly db: Database;
  readonly store: EventStore;
  readonly output: CliOutput;
}

/** A command's arguments: as given, and as the one parser split them (options by name, positionals). */
export interface CommandInput extends ParsedCommandLine {
  readonly args: readonly string[];
}

/**
 * How a command uses the database (none migrates it but `db:migrate`): `read` as it is (it reads, or writes only its
 * own scratch, and says so when migrations are pending), `write` only once every migration of this version is applied
 * (else exit code 3, nothing changed), `admin` as it is and without the note (the `db:*` commands, which are about
 * migrations).
 */
export type DatabaseUse = 'read' | 'write' | 'admin';

export interface CliCommand {
  readonly name: string;
  readonly aliases?: readonly string[];
  /** The command line, e.g. `events:replay <streamId>`. */
  readonly usage: string;
  /** One line for the help. */
  readonly description: string;
  readonly positionals?: readonly PositionalSpec[];
  /** Its options, declared once: parsed, checked and shown in `--help` from here. */
  readonly options?: OptionSpecs;
  /**
   * The further check of its arguments (values, combinations, positionals), returning the problem; replaces the
   * positional count check. Either way it runs before anything is opened.
   */
  readonly check?: (args: readonly string[]) => string | undefined;
  readonly database: DatabaseUse;
  /** Exit codes besides 0 (done) and 1 (usage or failure), for the help. */
  readonly exitCodes?: Readonly<Record<number, string>>;
  /** Resolves to the process exit code. */
  run(context: CliContext, input: CommandInput): Promise<number>;
}

/**
 * Pure: the command's arguments parsed by the one parser, or what is wrong with them: '' for a wrong count of
 * positional arguments (the usage line says it all), else the problem, followed by the options of a command that has
 * some.
 */
export function parseCommandArgs(command: CliCommand, args: readonly string[]): CommandInput | string {
  const parsed = parseCommandLine(command.options ?? {}, args);
  const problem =
    typeof parsed === 'string'
      ? parsed
      : command.check
        ? command.check(args)
        : positionalProblem(command.positionals ?? [], parsed.positionals);
  if (problem === undefined && typeof parsed !== 'string') return { ...parsed, args };
  const options = command.options ?? {};
  return problem && Object.keys(options).length > 0
    ? `${problem}. ${optionsSummary(options)}`
    : (problem ?? '');
}

/** What is wrong with a command's arguments (see `parseCommandArgs`): undefined when nothing. */
export function argumentsProblem(command: CliCommand, args: readonly string[]): string | undefined {
  const parsed = parseCommandArgs(command, args);
  return typeof parsed === 'string' ? parsed : undefined;
}
