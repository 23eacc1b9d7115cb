import { type AppConfig, loadAppConfig } from '../config/app-config.js';
import { ConfigError } from '../config/config.error.js';
import type { Database } from '../database/database.js';
import { migrationStatus } from '../database/migration-status.js';
import { openDatabase } from '../database/open-database.js';
import type { EventStore } from '../event-store/event-store.js';
import { openEventStore } from '../event-store/open-event-store.js';
import { asksForHelp } from './command-line.js';
import { type CliCommand, parseCommandArgs, resolveCommand } from './commands/index.js';
import { commandHelpLines, SCHEMA_BEHIND, usageLines } from './help.js';
import type { CliOutput } from './output.js';

/**
 * The operator and auditor CLI: `npm run cli -- <command> [args]` (`group:verb`, or `group verb`). Parses argv with
 * the one parser (each command declares its options), loads the configuration, opens the database (never migrating it:
 * only `db:migrate` does) and the event store, runs one command and always closes them. Resolves to the exit code:
 * 0 done, 1 usage or failure, 2 differences found by an audit, 3 a command that changes data refused to run on a
 * database that lacks migrations of this version.
 */
async function main(argv: readonly string[], output: CliOutput): Promise<number> {
  const [name] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    for (const line of usageLines()) output.out(line);
    return 0;
  }
  if (name === 'help') return help(argv.slice(1), output);
  const resolved = resolveCommand(argv);
  if (!resolved) {
    output.err(`Unknown command "${argv.slice(0, 2).join(' ')}".`);
    for (const line of usageLines()) output.err(line);
    return 1;
  }
  const { command, args } = resolved;
  if (asksForHelp(args)) {
    for (const line of commandHelpLines(command)) output.out(line);
    return 0;
  }
  const input = parseCommandArgs(command, args);
  if (typeof input === 'string') {
    if (input) output.err(input);
    output.err(`Usage: npm run cli -- ${command.usage}`);
    return 1;
  }

  let config: AppConfig | undefined;
  let db: Database | undefined;
  let store: EventStore | undefined;
  try {
    config = loadAppConfig(process.env);
    db = await openDatabase(config, { migrate: false });
    if (command.database === 'read') await notePendingMigrations(db, command, output);
    if (command.database === 'write' && !(await schemaCurrent(db, command, output))) return SCHEMA_BEHIND;
    store = openEventStore(config.eventStore, db);
    return await command.run({ config, db, store, output }, input);
  } catch (error) {
    if (error instanceof ConfigError) output.err(error.message);
    else if (error instanceof Error && config?.logLevel === 'debug') output.err(error.stack ?? error.message);
    else output.err(`${command.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await closeQuietly(output, () => store?.close());
    await closeQuietly(output, () => db?.close());
  }
}

/** `help`, or `help <command>` (also in the spaced form). */
function help(rest: readonly string[], output: CliOutput): number {
  if (rest.length === 0) {
    for (const line of usageLines()) output.out(line);
    return 0;
  }
  const resolved = resolveCommand(rest);
  if (!resolved) {
    output.err(`Unknown command "${rest.slice(0, 2).join(' ')}".`);
    for (const line of usageLines()) output.err(line);
    return 1;
  }
  for (const line of commandHelpLines(resolved.command)) output.out(line);
  return 0;
}

/** A read-only command does not migrate: it says so on stderr when this version has migrations the database lacks. */
async function notePendingMigrations(db: Database, command: CliCommand, output: CliOutput): Promise<void> {
  const { pending } = await migrationStatus(db);
  if (pending.length === 0) return;
  output.err(
    `Note: ${pending.length} migration${pending.length === 1 ? ' is' : 's are'} pending and ${command.name} does not ` +
      'migrate; it reads the database as it is (npm run cli -- db:status, db:migrate).',
  );
}

/**
 * A command that changes data runs only on a database with every migration of this version: it never migrates it
 * (that would change the schema under the instances still running the previous version, in the middle of a rollout),
 * and writing through an older schema could fail half-way. Says what to do when migrations are pending.
 */
async function schemaCurrent(db: Database, command: CliCommand, output: CliOutput): Promise<boolean> {
  const { pending } = await migrationStatus(db);
  if (pending.length === 0) return true;
  output.err(
    `${command.name} changes data, and the database lacks ${pending.length} migration${pending.length === 1 ? '' : 's'} ` +
      'of this version of Ferry; nothing was changed. Apply them first: npm run cli -- db:migrate ' +
      '(npm run cli -- db:status lists them).',
  );
  return false;
}

async function closeQuietly(output: CliOutput, close: () => Promise<void> | undefined): Promise<void> {
  try {
    await close();
  } catch (error) {
    output.err(`Closing failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

const processOutput: CliOutput = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  errRaw: (text) => void process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
};

main(process.argv.slice(2), processOutput).then(
  (code) => {
    process.exitCode = code;
    // Everything is closed; should a stray handle keep the process alive, do not hang the operator's shell.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
