import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { WebhookDeliveriesService } from '../../webhooks/delivery/webhook-deliveries.service.js';
import { webhookEndpointCheck } from '../../webhooks/webhook-endpoint-check.js';
import { WebhookSignal } from '../../webhooks/webhook-signal.js';
import type { Database } from '../../database/database.js';
import { projections } from '../../../projections/index.js';
import { flagOption, JSON_OPTION, type OptionSpecs, type PositionalSpec } from '../command-line.js';
import type { CliCommand } from './cli-command.js';

export {
  argumentsProblem,
  type CliCommand,
  type CliContext,
  type CommandInput,
  type DatabaseUse,
  parseCommandArgs,
} from './cli-command.js';
import { migrateDatabase } from '../../database/open-database.js';
import { dbMigrateCommand } from './db-migrate.command.js';
import { dbStatusCommand } from './db-status.command.js';
import {
  CREATE_API_KEY_OPTIONS,
  CREATE_API_KEY_USAGE,
  createApiKeyCommand,
  parseCreateApiKeyArgs,
} from './api-keys-create.command.js';
import { listApiKeysCommand } from './api-keys-list.command.js';
import {
  parseRevenueShareArgs,
  REVENUE_SHARE_OPTIONS,
  REVENUE_SHARE_USAGE,
  revenueShareCommand,
} from './api-keys-revenue-share.command.js';
import { revenueShareViews } from '../../revenue-share/revenue-share-view.js';
import { revokeApiKeyCommand } from './api-keys-revoke.command.js';
import { REENCRYPT_INCOMPLETE, reencryptApiKeysCommand } from './api-keys-reencrypt.command.js';
import { auditProjectionCommand } from './audit-projection.command.js';
import { projectionStatusCommand } from './projection-status.command.js';
import { rebuildProjectionCommand } from './rebuild-projection.command.js';
import { replayRequest } from './replay-request.command.js';
import { replayStream } from './replay-stream.command.js';
import { verifyRequest } from './verify-request.command.js';
import { hubDomain } from '../../oracle/config/oracle-config.js';
import {
  LIST_DELIVERIES_OPTIONS,
  LIST_DELIVERIES_USAGE,
  listDeliveriesCommand,
  parseListDeliveriesArgs,
} from './webhooks-deliveries.command.js';
import { showDeliveryCommand } from './webhooks-delivery.command.js';
import {
  parseRedeliverArgs,
  REDELIVER_OPTIONS,
  REDELIVER_USAGE,
  redeliverCommand,
} from './webhooks-redeliver.command.js';
import { removeWebhookCommand } from './webhooks-remove.command.js';
import {
  listSolverJobsCommand,
  parseSolverJobsArgs,
  retrySolverJobCommand,
  SOLVER_JOBS_OPTIONS,
  SOLVER_JOBS_USAGE,
} from './solver-jobs.command.js';
import {
  listSolverTransactionsCommand,
  parseSolverTransactionsArgs,
  SOLVER_TRANSACTIONS_OPTIONS,
  SOLVER_TRANSACTIONS_USAGE,
} from './solver-transactions.command.js';
import { SolverJobs } from '../../solver/solver-jobs.js';
import {
  parseSetWebhookArgs,
  SET_WEBHOOK_OPTIONS,
  SET_WEBHOOK_USAGE,
  setWebhookCommand,
} from './webhooks-set.command.js';

const solverJobs = (db: Database) => new SolverJobs(db, { leaseMs: 60_000, maxAttempts: 12 });
const deliveriesOf = (db: Database) => new WebhookDeliveriesService(db, new WebhookSignal());
const problemOf =
  <T>(parse: (args: readonly string[]) => T | string) =>
  (args: readonly string[]) => {
    const parsed = parse(args);
    return typeof parsed === 'string' ? parsed : undefined;
  };
const JSON_ONLY: OptionSpecs = { json: JSON_OPTION };
const keyArgument = (description: string): PositionalSpec => ({ name: '<id|prefix>', description });
const requestArgument: PositionalSpec = {
  name: '<requestId>',
  description: 'the request id (0x + 64 hex digits)',
};
const projectionArgument: PositionalSpec = {
  name: '<name>',
  description: 'a projection name (projections:status lists them)',
};

export const commands: readonly CliCommand[] = [
  {
    name: 'db:status',
    usage: 'db:status [--json]',
    description:
      'the migrations of this version: applied, pending, and any the database has that it does not know',
    options: JSON_ONLY,
    database: 'admin',
    run: ({ db, output }, input) => dbStatusCommand({ db }, output, { json: flagOption(input, 'json') }),
  },
  {
    name: 'db:migrate',
    usage: 'db:migrate',
    description:
      'apply the pending migrations: the only command that migrates (the server also migrates on start)',
    database: 'admin',
    run: ({ config, db, output }) =>
      dbMigrateCommand({ db, migrate: (opened) => migrateDatabase(opened, config) }, output),
  },
  {
    name: 'events:replay',
    usage: 'events:replay <streamId>',
    description: 'print each event of a stream and the state after it',
    positionals: [{ name: '<streamId>', description: 'the stream, e.g. request-0x…' }],
    database: 'read',
    run: ({ store, output }, { positionals: [streamId] }) => replayStream({ store }, streamId, output),
  },
  {
    name: 'requests:replay',
    usage: 'requests:replay <requestId>',
    description: 'print every event of a request with its status, then the v3 record it leads to',
    positionals: [requestArgument],
    database: 'read',
    run: ({ store, output }, { positionals: [requestId] }) => replayRequest({ store }, requestId, output),
  },
  {
    name: 'requests:verify',
    usage: 'requests:verify <requestId>',
    description:
      "check the request's oracle attestations: message ids, domain, signatures against the signer set",
    positionals: [requestArgument],
    database: 'read',
    exitCodes: { 1: 'an attestation does not verify, or the request has none' },
    run: ({ config, store, output }, { positionals: [requestId] }) =>
      verifyRequest(
        {
          store,
          domain: config.oracle.domain ?? hubDomain(process.env, config.environment, config.configDir),
          signers: config.oracle.signers,
          quorum: config.oracle.quorum,
        },
        requestId,
        output,
      ),
  },
  {
    name: 'projections:status',
    usage: 'projections:status [--json]',
    description: 'generations, checkpoints and lag of every projection',
    options: JSON_ONLY,
    database: 'read',
    run: ({ db, store, output }, input) =>
      projectionStatusCommand({ db, store, projections }, output, { json: flagOption(input, 'json') }),
  },
  {
    name: 'projections:rebuild',
    usage: 'projections:rebuild <name> [<name> …]',
    description:
      'rebuild projections blue/green from the start of the log (several that share a fold: read and folded once)',
    positionals: [{ ...projectionArgument, variadic: true }],
    database: 'write',
    run: ({ config, db, store, output }, { positionals: names }) =>
      rebuildProjectionCommand(
        { db, store, projections, batchSize: config.projections.batchSize },
        names,
        output,
      ),
  },
  {
    name: 'projections:audit',
    aliases: ['audit'],
    usage: 'projections:audit <name>',
    description: 'compare every live row with a rebuild in a scratch schema (exit 2 on differences)',
    positionals: [projectionArgument],
    database: 'read',
    exitCodes: { 2: 'the live rows differ from a rebuild (each difference is printed)' },
    run: ({ config, db, store, output }, { positionals: [name] }) =>
      auditProjectionCommand(
        { db, store, projections, batchSize: config.projections.batchSize },
        name,
        output,
      ),
  },
  {
    name: 'api-keys:create',
    usage: CREATE_API_KEY_USAGE,
    description: 'create an API key and print it once',
    options: CREATE_API_KEY_OPTIONS,
    check: problemOf(parseCreateApiKeyArgs),
    database: 'write',
    run: ({ config, db, output }, { args }) =>
      createApiKeyCommand(
        {
          apiKeys: new ApiKeysService(db, config),
          defaultRateLimitPerMinute: config.apiKeys.defaultRateLimitPerMinute,
          checkWebhook: webhookEndpointCheck(config.webhooks),
        },
        args,
        output,
      ),
  },
  {
    name: 'api-keys:list',
    usage: 'api-keys:list [--json]',
    description:
      'every API key: prefix, label, limits, webhook, created, revoked, revenue share (KYB, payout address, 30-day volume, tier); no secrets',
    options: JSON_ONLY,
    database: 'read',
    run: ({ config, db, output }, input) =>
      listApiKeysCommand(
        {
          apiKeys: new ApiKeysService(db, config),
          defaultRateLimitPerMinute: config.apiKeys.defaultRateLimitPerMinute,
          revenueShare: (keys) => revenueShareViews(db, keys, new Date()),
        },
        output,
        { json: flagOption(input, 'json') },
      ),
  },
  {
    name: 'api-keys:revenue-share',
    usage: REVENUE_SHARE_USAGE,
    description: "set an API key's revenue-share eligibility: KYB verified, the address its share is paid to",
    positionals: [keyArgument('the API key: its id or fk_… prefix')],
    options: REVENUE_SHARE_OPTIONS,
    check: problemOf(parseRevenueShareArgs),
    database: 'write',
    run: ({ config, db, output }, { args }) =>
      revenueShareCommand({ apiKeys: new ApiKeysService(db, config) }, args, output),
  },
  {
    name: 'api-keys:revoke',
    usage: 'api-keys:revoke <id|prefix>',
    description: 'revoke an API key (by id or its fk_… prefix); requests with it get 401 from then on',
    positionals: [keyArgument('the API key: its id, fk_… prefix, or the key itself')],
    database: 'write',
    run: ({ config, db, output }, { positionals: [idOrPrefix] }) =>
      revokeApiKeyCommand({ apiKeys: new ApiKeysService(db, config) }, idOrPrefix, output),
  },
  {
    name: 'api-keys:reencrypt',
    usage: 'api-keys:reencrypt',
    description:
      'rewrite every API key and webhook header value under API_KEY_ENCRYPTION_KEY, reading them under API_KEY_ENCRYPTION_KEY_PREVIOUS (key rotation)',
    database: 'write',
    exitCodes: {
      [REENCRYPT_INCOMPLETE]: 'some keys were left as they were (named on stderr): keep the previous secret',
    },
    run: ({ config, db, output }) =>
      reencryptApiKeysCommand(
        {
          apiKeys: new ApiKeysService(db, config),
          rotating: (config.apiKeys.previousEncryptionKey ?? null) !== null,
        },
        output,
      ),
  },
  {
    name: 'webhooks:set',
    usage: SET_WEBHOOK_USAGE,
    description: "set an API key's webhook endpoint (HTTPS, public targets only)",
    positionals: [{ name: '<apiKeyId|prefix>', description: 'the API key: its id or fk_… prefix' }],
    options: SET_WEBHOOK_OPTIONS,
    check: problemOf(parseSetWebhookArgs),
    database: 'write',
    run: ({ config, db, output }, { args }) =>
      setWebhookCommand({ apiKeys: new ApiKeysService(db, config), policy: config.webhooks }, args, output),
  },
  {
    name: 'webhooks:remove',
    usage: 'webhooks:remove <apiKeyId|prefix>',
    description: "remove an API key's webhook endpoint",
    positionals: [{ name: '<apiKeyId|prefix>', description: 'the API key: its id or fk_… prefix' }],
    database: 'write',
    run: ({ config, db, output }, { positionals: [idOrPrefix] }) =>
      removeWebhookCommand({ apiKeys: new ApiKeysService(db, config) }, idOrPrefix, output),
  },
  {
    name: 'webhooks:deliveries',
    usage: LIST_DELIVERIES_USAGE,
    description: 'the webhook delivery log, newest first',
    options: LIST_DELIVERIES_OPTIONS,
    check: problemOf(parseListDeliveriesArgs),
    database: 'read',
    run: ({ db, output }, { args }) => listDeliveriesCommand({ deliveries: deliveriesOf(db) }, args, output),
  },
  {
    name: 'webhooks:delivery',
    usage: 'webhooks:delivery <id|whk_…>',
    description: 'one webhook delivery: its body and every attempt (status code, latency, error, response)',
    positionals: [{ name: '<id|whk_…>', description: 'the delivery id or its X-Webhook-Id' }],
    database: 'read',
    run: ({ db, output }, { positionals: [id] }) =>
      showDeliveryCommand({ deliveries: deliveriesOf(db) }, id, output),
  },
  {
    name: 'webhooks:redeliver',
    usage: REDELIVER_USAGE,
    description:
      'send a delivery again (same X-Webhook-Id, fresh signature), or every failed one since a time',
    positionals: [{ name: '<id|whk_…>', description: 'the delivery id or its X-Webhook-Id', optional: true }],
    options: REDELIVER_OPTIONS,
    check: problemOf(parseRedeliverArgs),
    database: 'write',
    run: ({ db, output }, { args }) => redeliverCommand({ deliveries: deliveriesOf(db) }, args, output),
  },
  {
    name: 'solver:jobs',
    usage: SOLVER_JOBS_USAGE,
    description: "list the solver's fill and refund jobs (state, attempts, next attempt, last error)",
    options: SOLVER_JOBS_OPTIONS,
    check: problemOf(parseSolverJobsArgs),
    database: 'read',
    run: ({ db, output }, { args }) => listSolverJobsCommand(solverJobs(db), args, output),
  },
  {
    name: 'solver:transactions',
    usage: SOLVER_TRANSACTIONS_USAGE,
    description:
      'list the transaction journal: what the solver and relayer signed, sent and settled (state, nonce, fee cap, replacements, last error)',
    options: SOLVER_TRANSACTIONS_OPTIONS,
    check: problemOf(parseSolverTransactionsArgs),
    database: 'read',
    run: ({ db, output }, { args }) => listSolverTransactionsCommand(db, args, output),
  },
  {
    name: 'solver:retry',
    usage: 'solver:retry <kind:requestId[:depositKey]>',
    description: 'make a failed solver job due again now, with a fresh attempt count',
    positionals: [
      { name: '<kind:requestId[:depositKey]>', description: 'the job, as solver:jobs prints it' },
    ],
    database: 'write',
    run: ({ db, output }, { positionals: [key] }) => retrySolverJobCommand(solverJobs(db), key, output),
  },
];

export function findCommand(name: string): CliCommand | undefined {
  return commands.find((command) => command.name === name || command.aliases?.includes(name));
}

/**
 * The command an argv names and its arguments: `group:verb args…`, or the spaced form the first docs used,
 * `group verb args…` (`api-keys create --label x`). Undefined when neither names a command.
 */
export function resolveCommand(
  argv: readonly string[],
): { readonly command: CliCommand; readonly args: readonly string[] } | undefined {
  const [name, verb, ...rest] = argv;
  if (name === undefined) return undefined;
  const direct = findCommand(name);
  if (direct) return { command: direct, args: argv.slice(1) };
  if (verb === undefined || name.includes(':')) return undefined;
  const spaced = findCommand(`${name}:${verb}`);
  return spaced ? { command: spaced, args: rest } : undefined;
}
