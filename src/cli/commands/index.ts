import { ApiKeysService } from '../../api-keys/api-keys.service.js';
import { WebhookDeliveriesService } from '../../webhooks/delivery/webhook-deliveries.service.js';
import { webhookEndpointCheck } from '../../webhooks/webhook-endpoint-check.js';
import { WebhookSignal } from '../../webhooks/webhook-signal.js';
import type { AppConfig } from '../../config/app-config.js';
import type { Database } from '../../database/database.js';
import type { EventStore } from '../../event-store/event-store.js';
import { projections } from '../../../projections/index.js';
import type { CliOutput } from '../output.js';
import {
  CREATE_API_KEY_OPTIONS,
  CREATE_API_KEY_USAGE,
  createApiKeyCommand,
  parseCreateApiKeyArgs,
} from './api-keys-create.command.js';
import { listApiKeysCommand } from './api-keys-list.command.js';
import {
  parseRevenueShareArgs,
  REVENUE_SHARE_USAGE,
  revenueShareCommand,
} from './api-keys-revenue-share.command.js';
import { revenueShareViews } from '../../revenue-share/revenue-share-view.js';
import { revokeApiKeyCommand } from './api-keys-revoke.command.js';
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
  checkSolverJobsArgs,
  listSolverJobsCommand,
  retrySolverJobCommand,
  SOLVER_JOBS_USAGE,
} from './solver-jobs.command.js';
import { SolverJobs } from '../../solver/solver-jobs.js';
import {
  parseSetWebhookArgs,
  SET_WEBHOOK_OPTIONS,
  SET_WEBHOOK_USAGE,
  setWebhookCommand,
} from './webhooks-set.command.js';

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
  /**
   * How many positional arguments it takes (exactly), or, for a command with options, a check of its arguments
   * returning the problem with them (undefined when fine). Either way it is checked before anything is opened.
   */
  readonly arity: number | ((args: readonly string[]) => string | undefined);
  /** Resolves to the process exit code. */
  run(context: CliContext, args: readonly string[]): Promise<number>;
}

const solverJobs = (db: Database) => new SolverJobs(db, { leaseMs: 60_000, maxAttempts: 12 });

export const commands: readonly CliCommand[] = [
  {
    name: 'solver:jobs',
    usage: SOLVER_JOBS_USAGE,
    description: "list the solver's fill and refund jobs (state, attempts, next attempt, last error)",
    arity: checkSolverJobsArgs,
    run: ({ db, output }, args) => listSolverJobsCommand(solverJobs(db), args, output),
  },
  {
    name: 'solver:retry',
    usage: 'solver:retry <kind:requestId[:depositKey]>',
    description: 'make a failed solver job due again now, with a fresh attempt count',
    arity: 1,
    run: ({ db, output }, [key]) => retrySolverJobCommand(solverJobs(db), key, output),
  },
  {
    name: 'events:replay',
    usage: 'events:replay <streamId>',
    description: 'print each event of a stream and the state after it',
    arity: 1,
    run: ({ store, output }, [streamId]) => replayStream({ store }, streamId, output),
  },
  {
    name: 'requests:replay',
    usage: 'requests:replay <requestId>',
    description: 'print every event of a request with its status, then the v3 record it leads to',
    arity: 1,
    run: ({ store, output }, [requestId]) => replayRequest({ store }, requestId, output),
  },
  {
    name: 'requests:verify',
    usage: 'requests:verify <requestId>',
    description:
      "check the request's oracle attestations: message ids, domain, signatures against the signer set",
    arity: 1,
    run: ({ config, store, output }, [requestId]) =>
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
    usage: 'projections:status',
    description: 'generations, checkpoints and lag of every projection',
    arity: 0,
    run: ({ db, store, output }) => projectionStatusCommand({ db, store, projections }, output),
  },
  {
    name: 'projections:rebuild',
    usage: 'projections:rebuild <name> [<name> …]',
    description:
      'rebuild projections blue/green from the start of the log (several that share a fold: read and folded once)',
    arity: (args) => (args.length >= 1 ? undefined : ''),
    run: ({ config, db, store, output }, names) =>
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
    description: 'compare every live row with a rebuild (exit 2 on differences)',
    arity: 1,
    run: ({ config, db, store, output }, [name]) =>
      auditProjectionCommand(
        { db, store, projections, batchSize: config.projections.batchSize },
        name,
        output,
      ),
  },
  {
    name: 'api-keys:create',
    usage: CREATE_API_KEY_USAGE,
    description: `create an API key and print it once. ${CREATE_API_KEY_OPTIONS}`,
    arity: (args) => {
      const parsed = parseCreateApiKeyArgs(args);
      return typeof parsed === 'string' ? `${parsed}. ${CREATE_API_KEY_OPTIONS}` : undefined;
    },
    run: ({ config, db, output }, args) =>
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
    usage: 'api-keys:list',
    description:
      'every API key: prefix, label, limits, webhook, created, revoked, revenue share (KYB, payout address, 30-day volume, tier); no secrets',
    arity: 0,
    run: ({ config, db, output }) =>
      listApiKeysCommand(
        {
          apiKeys: new ApiKeysService(db, config),
          defaultRateLimitPerMinute: config.apiKeys.defaultRateLimitPerMinute,
          revenueShare: (keys) => revenueShareViews(db, keys, new Date()),
        },
        output,
      ),
  },
  {
    name: 'api-keys:revenue-share',
    usage: REVENUE_SHARE_USAGE,
    description: "set an API key's revenue-share eligibility: KYB verified, the address its share is paid to",
    arity: (args) => {
      const parsed = parseRevenueShareArgs(args);
      return typeof parsed === 'string' ? parsed : undefined;
    },
    run: ({ config, db, output }, args) =>
      revenueShareCommand({ apiKeys: new ApiKeysService(db, config) }, args, output),
  },
  {
    name: 'api-keys:revoke',
    usage: 'api-keys:revoke <id|prefix>',
    description: 'revoke an API key (by id or its fk_… prefix); requests with it get 401 from then on',
    arity: 1,
    run: ({ config, db, output }, [idOrPrefix]) =>
      revokeApiKeyCommand({ apiKeys: new ApiKeysService(db, config) }, idOrPrefix, output),
  },
  {
    name: 'webhooks:set',
    usage: SET_WEBHOOK_USAGE,
    description: `set an API key's webhook endpoint (HTTPS, public targets only). ${SET_WEBHOOK_OPTIONS}`,
    arity: (args) => {
      const parsed = parseSetWebhookArgs(args);
      return typeof parsed === 'string' ? `${parsed}. ${SET_WEBHOOK_OPTIONS}` : undefined;
    },
    run: ({ config, db, output }, args) =>
      setWebhookCommand({ apiKeys: new ApiKeysService(db, config), policy: config.webhooks }, args, output),
  },
  {
    name: 'webhooks:remove',
    usage: 'webhooks:remove <apiKeyId|prefix>',
    description: "remove an API key's webhook endpoint",
    arity: 1,
    run: ({ config, db, output }, [idOrPrefix]) =>
      removeWebhookCommand({ apiKeys: new ApiKeysService(db, config) }, idOrPrefix, output),
  },
  {
    name: 'webhooks:deliveries',
    usage: LIST_DELIVERIES_USAGE,
    description: `the webhook delivery log, newest first. ${LIST_DELIVERIES_OPTIONS}`,
    arity: (args) => {
      const parsed = parseListDeliveriesArgs(args);
      return typeof parsed === 'string' ? `${parsed}. ${LIST_DELIVERIES_OPTIONS}` : undefined;
    },
    run: ({ db, output }, args) =>
      listDeliveriesCommand(
        { deliveries: new WebhookDeliveriesService(db, new WebhookSignal()) },
        args,
        output,
      ),
  },
  {
    name: 'webhooks:delivery',
    usage: 'webhooks:delivery <id|whk_…>',
    description: 'one webhook delivery: its body and every attempt (status code, latency, error, response)',
    arity: 1,
    run: ({ db, output }, [id]) =>
      showDeliveryCommand({ deliveries: new WebhookDeliveriesService(db, new WebhookSignal()) }, id, output),
  },
  {
    name: 'webhooks:redeliver',
    usage: REDELIVER_USAGE,
    description: `send a delivery again (same X-Webhook-Id, fresh signature). ${REDELIVER_OPTIONS}`,
    arity: (args) => {
      const parsed = parseRedeliverArgs(args);
      return typeof parsed === 'string' ? `${parsed}. ${REDELIVER_OPTIONS}` : undefined;
    },
    run: ({ db, output }, args) =>
      redeliverCommand({ deliveries: new WebhookDeliveriesService(db, new WebhookSignal()) }, args, output),
  },
];

/**
 * What is wrong with a command's arguments: undefined when nothing, '' for a wrong count of positional
 * arguments (the usage line says it all), else the problem.
 */
export function argumentsProblem(command: CliCommand, args: readonly string[]): string | undefined {
  if (typeof command.arity === 'function') return command.arity(args);
  return args.length === command.arity ? undefined : '';
}

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
