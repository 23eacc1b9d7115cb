import { HELP_OPTION, type OptionSpec, optionSynopsis } from './command-line.js';
import { type CliCommand, commands } from './commands/index.js';

/** The exit code of a command that changes data, refused because the database lacks migrations of this version. */
export const SCHEMA_BEHIND = 3;

const SCHEMA_BEHIND_MEANING =
  'the database lacks migrations of this version: nothing was changed (run db:migrate)';

/** The exit codes every command shares; `projections:audit` adds 2, commands that change data 3. */
export const EXIT_CODES: Readonly<Record<number, string>> = {
  0: 'done',
  1: 'a usage error (unknown command or option, missing argument), a configuration error, or the command failed',
  2: 'projections:audit found differences between the live rows and a rebuild',
  [SCHEMA_BEHIND]:
    'a command that changes data refused to run: the database lacks migrations of this version (run db:migrate)',
};

/** The help text: every command on one line, then the exit codes. */
export function usageLines(): string[] {
  const entries: [string, string][] = [
    ['help [<command>]', 'show this help, or a command’s (also --help, or no command)'],
    ...commands.map((command): [string, string] => [
      [
        command.name,
        ...(command.positionals ?? []).map((p) =>
          p.optional ? `[${p.name}]` : p.variadic ? `${p.name}…` : p.name,
        ),
        ...(Object.keys(command.options ?? {}).length ? ['[options]'] : []),
        ...(command.aliases?.length ? [`(or ${command.aliases.join(', ')})`] : []),
      ].join(' '),
      command.description,
    ]),
  ];
  return [
    'Usage: npm run cli -- <command> [args]   (or <group> <verb> [args]: api-keys create …)',
    '',
    'Commands:',
    ...columns(entries),
    '',
    'Run `npm run cli -- <command> --help` for a command’s arguments and options.',
    '',
    'Exit codes:',
    ...columns(Object.entries(EXIT_CODES)),
    '',
    'Configuration comes from the environment (DATABASE_URL, EVENTSTORE_URL, ENVIRONMENT, ...), as for the server.',
    'Only db:migrate migrates the database. Read-only commands read it as it is (with a note when migrations are',
    'pending); commands that change data refuse to run (exit code 3) until db:migrate has applied them.',
  ];
}

/** A command's help: usage, description, arguments, options with their descriptions, exit codes. */
export function commandHelpLines(command: CliCommand): string[] {
  const [group, verb] = command.name.split(':');
  const lines = [
    `Usage: npm run cli -- ${command.usage}`,
    `   or: npm run cli -- ${group} ${verb}${command.usage.slice(command.name.length)}`,
    ...(command.aliases ?? []).map(
      (alias) => `   or: npm run cli -- ${alias}${command.usage.slice(command.name.length)}`,
    ),
    '',
    `${command.description[0].toUpperCase()}${command.description.slice(1)}.`,
  ];
  if (command.positionals?.length) {
    lines.push('', 'Arguments:', ...columns(command.positionals.map((p) => [p.name, p.description])));
  }
  const options: [string, OptionSpec][] = [...Object.entries(command.options ?? {}), ['help', HELP_OPTION]];
  lines.push(
    '',
    'Options:',
    ...columns(
      options.map(([name, spec]) => [
        optionSynopsis(name, spec),
        `${spec.description}${spec.multiple && !/repeatable/.test(spec.description) ? ' (repeatable)' : ''}`,
      ]),
    ),
  );
  const codes: Record<number, string> = {
    0: EXIT_CODES[0],
    1: 'a usage error, a configuration error, or the command failed',
  };
  if (command.database === 'write') codes[SCHEMA_BEHIND] = SCHEMA_BEHIND_MEANING;
  for (const [code, meaning] of Object.entries(command.exitCodes ?? {})) {
    codes[Number(code)] = codes[Number(code)] ? `${codes[Number(code)]}; or ${meaning}` : meaning;
  }
  lines.push('', 'Exit codes:', ...columns(Object.entries(codes)));
  lines.push(
    '',
    command.database === 'read'
      ? 'Reads the database as it is: never migrates it.'
      : command.database === 'write'
        ? 'Changes data: never migrates the database, and refuses to run while migrations are pending (db:migrate).'
        : 'Opens the database without migrating it; migrations are what it is about.',
  );
  return lines;
}

function columns(entries: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...entries.map(([left]) => left.length));
  return entries.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
