import { type AppConfig, loadAppConfig } from '../config/app-config.js';
import { ConfigError } from '../config/config.error.js';
import type { Database } from '../database/database.js';
import { openDatabase } from '../database/open-database.js';
import type { EventStore } from '../event-store/event-store.js';
import { openEventStore } from '../event-store/open-event-store.js';
import { argumentsProblem, resolveCommand, usageLines } from './commands/index.js';
import type { CliOutput } from './output.js';

/**
 * The operator and auditor CLI: `npm run cli -- <command> [args]` (`group:verb`, or `group verb`). Parses argv, loads the configuration, opens
 * the database and the event store, runs one command and always closes them. Resolves to the exit code.
 */
async function main(argv: readonly string[], output: CliOutput): Promise<number> {
  const [name] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    for (const line of usageLines()) output.out(line);
    return 0;
  }
  const resolved = resolveCommand(argv);
  if (!resolved) {
    output.err(`Unknown command "${argv.slice(0, 2).join(' ')}".`);
    for (const line of usageLines()) output.err(line);
    return 1;
  }
  const { command, args } = resolved;
  const problem = argumentsProblem(command, args);
  if (problem !== undefined) {
    if (problem) output.err(problem);
    output.err(`Usage: npm run cli -- ${command.usage}`);
    return 1;
  }

  let config: AppConfig | undefined;
  let db: Database | undefined;
  let store: EventStore | undefined;
  try {
    config = loadAppConfig(process.env);
    db = await openDatabase(config);
    store = openEventStore(config.eventStore, db);
    return await command.run({ config, db, store, output }, args);
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
