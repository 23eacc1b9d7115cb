import { resolve } from 'node:path';
import { apiKeySecret } from '../api-keys/api-key-secret.js';
import { ConfigError } from './config.error.js';
import { loadConfigFile, type LoadedConfigFile } from './config-file.js';
import type { Env } from './resolve-placeholders.js';

export type DatabaseConfig =
  { readonly kind: 'postgres'; readonly url: string } | { readonly kind: 'pglite'; readonly dataDir: string };

export type EventStoreConfig =
  { readonly kind: 'postgres' } | { readonly kind: 'esdb'; readonly url: string };

/** The whole configuration, read once at boot. Nothing else reads `process.env`. */
export interface AppConfig {
  readonly environment: string;
  readonly configDir: string;
  readonly http: { readonly port: number; readonly bodyLimitBytes: number };
  readonly database: DatabaseConfig;
  readonly eventStore: EventStoreConfig;
  readonly logLevel: LogLevel;
  readonly projections: {
    readonly batchSize: number;
    readonly pollIntervalMs: number;
    readonly rebuildOnVersionChange: boolean;
    readonly run: boolean;
  };
  readonly health: { readonly maxProjectionLagSeconds: number };
  readonly webhooks: WebhooksConfig;
  /** Operator routes (`/admin/...`) need `x-admin-token` equal to this; null disables them. */
  readonly adminApiToken: string | null;
  /** How often the deadline sweeper looks for requests past a deadline (0: never, e.g. in tests that sweep by hand). */
  readonly requests: { readonly sweepIntervalMs: number };
  readonly postgres: { readonly poolSize: number; readonly idleInTransactionSessionTimeoutMs: number };
  /** `encryptionKey`: the 32-byte secret API keys are hashed and encrypted under (see docs/api-keys.md). */
  readonly apiKeys: { readonly encryptionKey: Buffer; readonly defaultRateLimitPerMinute: number };
  /** The deprecated `GET /requests/v2`: when it was deprecated, its shrinking rate limits, its retirement. */
  readonly v2: V2Schedule;
}

export interface V2Schedule {
  readonly deprecatedAt: Date;
  readonly sunsetAt: Date;
  /** Ascending; each limit (requests per minute per caller) applies from its date until the next one's. */
  readonly rateLimits: readonly { readonly from: Date; readonly perMinute: number }[];
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const ENVIRONMENT_NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Builds the typed configuration from the environment and `configs/app.<ENVIRONMENT>.json`.
 * Throws a ConfigError naming the first missing or malformed variable.
 */
export function loadAppConfig(env: Env, configDir = resolve('configs')): AppConfig {
  const environment = env.ENVIRONMENT || 'development';
  if (!ENVIRONMENT_NAME.test(environment)) {
    throw new ConfigError(
      'ENVIRONMENT',
      `must be lowercase letters, digits and dashes (got "${environment}")`,
    );
  }
  const file = loadConfigFile(configDir, 'app', environment, env);
  const read = new ConfigReader(file);

  return {
    environment,
    configDir,
    http: {
      port: read.integer('http.port', 1, 65535),
      bodyLimitBytes: read.integer('http.bodyLimitBytes', 1024, 64 * 1024 * 1024),
    },
    database: databaseConfig(env),
    eventStore: eventStoreConfig(env),
    logLevel: logLevel(env),
    projections: {
      batchSize: read.integer('projections.batchSize', 1, 100_000),
      pollIntervalMs: read.integer('projections.pollIntervalMs', 1, 60_000),
      rebuildOnVersionChange: read.boolean('projections.rebuildOnVersionChange'),
      run: read.boolean('projections.run'),
    },
    health: { maxProjectionLagSeconds: read.integer('health.maxProjectionLagSeconds', 1, 86_400) },
    requests: { sweepIntervalMs: read.integer('requests.sweepIntervalMs', 0, 3_600_000) },
    postgres: {
      poolSize: read.integer('postgres.poolSize', 1, 1000),
      idleInTransactionSessionTimeoutMs: read.integer(
        'postgres.idleInTransactionSessionTimeoutMs',
        0,
        86_400_000,
      ),
    },
    v2: v2Schedule(read),
    webhooks: {
      run: read.boolean('webhooks.run'),
      retry: {
        baseMs: read.integer('webhooks.retry.baseMs', 0, 86_400_000),
        maxMs: read.integer('webhooks.retry.maxMs', 0, 86_400_000),
        factor: read.decimal('webhooks.retry.factor', 1, 100),
        jitter: read.decimal('webhooks.retry.jitter', 0, 1),
      },
      timeoutMs: read.integer('webhooks.timeoutMs', 1, 120_000),
      leaseMs: read.integer('webhooks.leaseMs', 1, 600_000),
      batchSize: read.integer('webhooks.batchSize', 1, 1000),
      pollIntervalMs: read.integer('webhooks.pollIntervalMs', 1, 60_000),
      allowInsecureLocalTargets: read.boolean('webhooks.allowInsecureLocalTargets'),
    },
    adminApiToken: adminApiToken(env),
    // Last: it may create the development secret file, which only a valid configuration should do.
    apiKeys: apiKeysConfig(env, environment, read),
  };
}

export interface WebhooksConfig {
  /** Whether this process writes the outbox and delivers (any number of instances may). */
  readonly run: boolean;
  readonly retry: {
    readonly baseMs: number;
    readonly maxMs: number;
    readonly factor: number;
    readonly jitter: number;
  };
  readonly timeoutMs: number;
  /** How long a claimed delivery stays in flight before another dispatcher may retry it (a crashed one's). */
  readonly leaseMs: number;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  /** Development and tests only: http:// and loopback targets are allowed. */
  readonly allowInsecureLocalTargets: boolean;
}

function adminApiToken(env: Env): string | null {
  const token = env.ADMIN_API_TOKEN;
  if (token === undefined || token === '') return null;
  if (token.length < 32)
    throw new ConfigError('ADMIN_API_TOKEN', 'must be at least 32 characters (e.g. openssl rand -hex 32)');
  return token;
}

function apiKeysConfig(env: Env, environment: string, read: ConfigReader): AppConfig['apiKeys'] {
  const defaultRateLimitPerMinute = read.integer('apiKeys.defaultRateLimitPerMinute', 1, 1_000_000);
  return { encryptionKey: apiKeySecret(env, environment), defaultRateLimitPerMinute };
}

function v2Schedule(read: ConfigReader): V2Schedule {
  const deprecatedAt = read.instant('v2.deprecatedAt');
  const sunsetAt = read.instant('v2.sunsetAt');
  if (sunsetAt <= deprecatedAt) throw read.error('v2.sunsetAt', 'must be after v2.deprecatedAt');
  const rateLimits = Array.from({ length: read.length('v2.rateLimits') }, (_, i) => ({
    from: read.instant(`v2.rateLimits.${i}.from`),
    perMinute: read.integer(`v2.rateLimits.${i}.perMinute`, 1, 1_000_000),
  }));
  rateLimits.forEach(({ from }, i) => {
    const previous = i === 0 ? deprecatedAt : rateLimits[i - 1].from;
    if (from < previous || from >= sunsetAt) {
      throw read.error(
        `v2.rateLimits.${i}.from`,
        'must be ascending, from v2.deprecatedAt to before v2.sunsetAt',
      );
    }
  });
  return { deprecatedAt, sunsetAt, rateLimits };
}

function databaseConfig(env: Env): DatabaseConfig {
  const url = env.DATABASE_URL;
  if (url === undefined || url === '') {
    const dataDir = env.DATA_DIR || 'data';
    return { kind: 'pglite', dataDir: dataDir.startsWith('memory://') ? dataDir : resolve(dataDir) };
  }
  if (!/^postgres(ql)?:\/\/.+/.test(url)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  try {
    new URL(url);
  } catch {
    throw new ConfigError('DATABASE_URL', 'is not a valid URL');
  }
  return { kind: 'postgres', url };
}

function eventStoreConfig(env: Env): EventStoreConfig {
  const url = env.EVENTSTORE_URL;
  if (url === undefined || url === '') return { kind: 'postgres' };
  if (!/^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kurrent|kurrent\+discover):\/\/.+/.test(url)) {
    throw new ConfigError('EVENTSTORE_URL', 'must be an esdb:// (or kurrentdb://) connection string');
  }
  return { kind: 'esdb', url };
}

function logLevel(env: Env): LogLevel {
  const level = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(level)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}")`);
  }
  return level;
}

/** Typed access to one resolved config file; errors name the variable a value came from. */
class ConfigReader {
  constructor(private readonly file: LoadedConfigFile) {}

  integer(path: string, min: number, max: number): number {
    const raw = this.raw(path);
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !/^-?[0-9]+$/.test(text)) {
      throw this.error(path, `must be an integer (got ${JSON.stringify(raw)})`);
    }
    const value = Number(text);
    if (value < min || value > max)
      throw this.error(path, `must be between ${min} and ${max} (got ${value})`);
    return value;
  }

  /** A decimal number (`0.2`, `2`), as a JS number: for ratios, never for money. */
  decimal(path: string, min: number, max: number): number {
    const raw = this.raw(path);
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !/^-?[0-9]+(\.[0-9]+)?$/.test(text)) {
      throw this.error(path, `must be a number (got ${JSON.stringify(raw)})`);
    }
    const value = Number(text);
    if (value < min || value > max)
      throw this.error(path, `must be between ${min} and ${max} (got ${value})`);
    return value;
  }

  boolean(path: string): boolean {
    const raw = this.raw(path);
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw this.error(path, `must be true or false (got ${JSON.stringify(raw)})`);
  }

  /** An ISO 8601 date-time with an explicit offset (`2026-11-24T00:00:00Z`). */
  instant(path: string): Date {
    const raw = this.raw(path);
    const date = typeof raw === 'string' ? new Date(raw) : undefined;
    if (!date || !/T.*(Z|[+-]\d\d:\d\d)$/.test(raw as string) || Number.isNaN(date.getTime())) {
      throw this.error(path, `must be an ISO 8601 date-time with a time zone (got ${JSON.stringify(raw)})`);
    }
    return date;
  }

  /** The length of an array. */
  length(path: string): number {
    const raw = this.raw(path);
    if (!Array.isArray(raw)) throw this.error(path, `must be an array (got ${JSON.stringify(raw)})`);
    return raw.length;
  }

  private raw(path: string): unknown {
    let node: unknown = this.file.value;
    for (const key of path.split('.')) {
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
    if (node === undefined) throw this.error(path, 'is missing');
    return node;
  }

  error(path: string, problem: string): ConfigError {
    const variable = this.file.origins.get(path);
    return variable
      ? new ConfigError(variable, `${problem} (${this.file.file}: ${path})`)
      : new ConfigError(`${this.file.file}: ${path}`, problem);
  }
}
