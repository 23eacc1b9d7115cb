import { resolve } from 'node:path';
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
  readonly postgres: { readonly poolSize: number; readonly idleInTransactionSessionTimeoutMs: number };
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
    postgres: {
      poolSize: read.integer('postgres.poolSize', 1, 1000),
      idleInTransactionSessionTimeoutMs: read.integer(
        'postgres.idleInTransactionSessionTimeoutMs',
        0,
        86_400_000,
      ),
    },
  };
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

  boolean(path: string): boolean {
    const raw = this.raw(path);
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw this.error(path, `must be true or false (got ${JSON.stringify(raw)})`);
  }

  private raw(path: string): unknown {
    let node: unknown = this.file.value;
    for (const key of path.split('.')) {
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
    if (node === undefined) throw this.error(path, 'is missing');
    return node;
  }

  private error(path: string, problem: string): ConfigError {
    const variable = this.file.origins.get(path);
    return variable
      ? new ConfigError(variable, `${problem} (${this.file.file}: ${path})`)
      : new ConfigError(`${this.file.file}: ${path}`, problem);
  }
}
