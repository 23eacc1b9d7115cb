import { resolve } from 'node:path';
import { apiKeySecret, previousApiKeySecret } from '../api-keys/api-key-secret.js';
import type { AppFeesConfig } from '../app-fees/app-fees.config.js';
import { type ChainRegistry, loadChainRegistry } from '../chains/chain-registry.js';
import { ConfigError } from './config.error.js';
import { type OracleClientConfig, oracleClientConfig } from './oracle-client-config.js';
import { loadConfigFile } from './config-file.js';
import { ConfigReader } from './config-reader.js';

export { ConfigReader } from './config-reader.js';
import { longestUnrecordedAttemptMs, ROUND_WAIT_MS } from '../webhooks/webhook-lease.js';
import { type PriceSourceConfig, priceSourceConfig } from './price-source-config.js';
import type { Env } from './resolve-placeholders.js';

export type DatabaseConfig =
  { readonly kind: 'postgres'; readonly url: string } | { readonly kind: 'pglite'; readonly dataDir: string };

export type EventStoreConfig =
  { readonly kind: 'postgres' } | { readonly kind: 'esdb'; readonly url: string };

/** The whole configuration, read once at boot. Nothing else reads `process.env`. */
export interface AppConfig {
  readonly environment: string;
  readonly configDir: string;
  readonly http: {
    readonly port: number;
    readonly bodyLimitBytes: number;
    /** How often the info-level summary of the requests answered is logged (0: never); see docs/logging.md. */
    readonly requestSummaryIntervalMs: number;
    /**
     * `TRUST_PROXY`: which proxies' `X-Forwarded-For` to believe — `true` (all), a hop count, or addresses/CIDRs;
     * false (unset): the socket's peer is the client.
     */
    readonly trustProxy: boolean | number | string;
  };
  readonly database: DatabaseConfig;
  readonly eventStore: EventStoreConfig;
  readonly logLevel: LogLevel;
  readonly projections: {
    readonly batchSize: number;
    readonly pollIntervalMs: number;
    readonly rebuildOnVersionChange: boolean;
    readonly run: boolean;
  };
  /**
   * `probeIntervalMs`: how often the background probe reads each part; `maxReadingAgeMs`: a part whose last
   * reading is older than this is reported down (the probe is stuck), whatever that reading said.
   */
  readonly health: {
    readonly maxProjectionLagSeconds: number;
    readonly probeIntervalMs: number;
    readonly maxReadingAgeMs: number;
  };
  readonly webhooks: WebhooksConfig;
  /** Operator routes (`/admin/...`) need `x-admin-token` equal to this; null disables them. */
  readonly adminApiToken: string | null;
  /** `GET /metrics` needs `Authorization: Bearer <this>`; null: open (production warns at start). */
  readonly metricsToken: string | null;
  /** `METRICS_ENABLED=false`: no `GET /metrics` and no per-request observation (the benchmark's anchor). */
  readonly metricsEnabled: boolean;
  /** How often the deadline sweeper looks for requests past a deadline (0: never, e.g. in tests that sweep by hand). */
  readonly requests: { readonly sweepIntervalMs: number };
  readonly postgres: { readonly poolSize: number; readonly idleInTransactionSessionTimeoutMs: number };
  /** `encryptionKey`: the 32-byte secret API keys are hashed and encrypted under (see docs/api-keys.md). */
  readonly apiKeys: {
    readonly encryptionKey: Buffer;
    /** `API_KEY_ENCRYPTION_KEY_PREVIOUS`: the secret being rotated away from, still read; null when none. */
    readonly previousEncryptionKey?: Buffer | null;
    readonly defaultRateLimitPerMinute: number;
    /** Per client address, for keyless callers of `@AnonymousRateLimit()` routes (`POST /quote/v2`); 0: none. */
    readonly anonymousRateLimitPerMinute: number;
  };
  /** The deprecated `GET /requests/v2`: when it was deprecated, its shrinking rate limits, its retirement. */
  readonly v2: V2Schedule;
  /** Chains and currencies from `configs/chains.<ENVIRONMENT>.json` (docs/chains.md). */
  readonly chains: ChainRegistry;
  readonly quotes: QuotesConfig;
  readonly chainRuntime: ChainRuntimeConfig;
  /** The attestation oracle in this process and the oracles Ferry asks (docs/oracle.md). */
  readonly oracle: OracleClientConfig;
  readonly appFees: AppFeesConfig;
}

/** The processes that talk to chains: the watcher, the solver, the relayer of the execute path (docs/chains.md). */
export interface ChainRuntimeConfig {
  /** Whether this process watches the EVM chains that have an RPC for deposits. */
  readonly watcherRun: boolean;
  readonly pollIntervalMs: number;
  /** Most blocks one `eth_getLogs` asks for. */
  readonly maxBlockRange: number;
  /** Whether this process fills and refunds (development and tests: Ferry's own solver). */
  readonly solverRun: boolean;
  /** How long a claimed solver job stays with one worker unless renewed (the worker renews while it waits). */
  readonly solverLeaseMs: number;
  /** The solver's key (fills on destinations, refunds on origins); null: no solver here. */
  readonly solverPrivateKey: `0x${string}` | null;
  /** The relayer's key: sends permit deposits for `usePermit` quotes (`POST /execute/permits`). */
  readonly relayerPrivateKey: `0x${string}` | null;
}

/** How quotes are priced and how long they live (docs/fees.md, docs/quotes.md). */
export interface QuotesConfig {
  /** The chain id the order's EIP-712 domain is bound to (the hub). */
  readonly hubChainId: number;
  /** A quote not deposited within this expires. */
  readonly quoteTtlSeconds: number;
  /** After the quote, how long the solver has to fill before the request fails and is refunded. */
  readonly fillDeadlineSeconds: number;
  /** How long a detected deposit may take to become final. */
  readonly depositConfirmationTimeoutSeconds: number;
  /** DEX fee and expected impact of swaps, basis points of the input. */
  readonly swapFeeBps: number;
  readonly swapImpactBps: number;
  /** Where USD prices come from: feeds, the development table, or both (docs/prices.md). */
  readonly priceSource: PriceSourceConfig;
  /** The most an API key with fee sponsorship pays for one quote, in USD (API keys have no cap of their own yet). */
  readonly maxSubsidizationUsd: string;
  /** How long a gas price read from a chain is reused, and how long an RPC may take before the default is used. */
  readonly gasPriceCacheMs: number;
  readonly rpcTimeoutMs: number;
  /** Perps exchange B's USDC fee for executing a withdrawal transfer (`usdcFee`, smallest unit, 6 decimals). */
  readonly perpsBUsdcFee: bigint;
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
  // Loaded in its place among the sections (errors keep their order); the price feeds need it.
  let chains: ChainRegistry;

  return {
    environment,
    configDir,
    http: {
      port: read.integer('http.port', 1, 65535),
      bodyLimitBytes: read.integer('http.bodyLimitBytes', 1024, 64 * 1024 * 1024),
      requestSummaryIntervalMs: read.integer('http.requestSummaryIntervalMs', 0, 86_400_000),
      trustProxy: trustProxy(env),
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
    health: {
      maxProjectionLagSeconds: read.integer('health.maxProjectionLagSeconds', 1, 86_400),
      probeIntervalMs: read.integer('health.probeIntervalMs', 10, 600_000),
      maxReadingAgeMs: read.integer('health.maxReadingAgeMs', 100, 3_600_000),
    },
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
    webhooks: webhooksConfig(read),
    adminApiToken: adminApiToken(env),
    metricsToken: env.METRICS_TOKEN ? env.METRICS_TOKEN : null,
    metricsEnabled: env.METRICS_ENABLED !== 'false',
    chains: (chains = loadChainRegistry(env, environment, configDir)),
    quotes: quotesConfig(read, environment, chains),
    chainRuntime: {
      watcherRun: read.boolean('chainRuntime.watcherRun'),
      pollIntervalMs: read.integer('chainRuntime.pollIntervalMs', 10, 600_000),
      maxBlockRange: read.integer('chainRuntime.maxBlockRange', 1, 100_000),
      solverRun: read.boolean('chainRuntime.solverRun'),
      solverLeaseMs: read.integer('chainRuntime.solverLeaseMs', 1_000, 3_600_000),
      solverPrivateKey: privateKey(env, 'SOLVER_PRIVATE_KEY', read, 'chainRuntime.solverPrivateKey'),
      relayerPrivateKey: privateKey(env, 'RELAYER_PRIVATE_KEY', read, 'chainRuntime.relayerPrivateKey'),
    },
    appFees: appFeesConfig(env, read),
    oracle: oracleClientConfig(env, read, environment, configDir, chains),
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
  /** The bound on resolving an endpoint's host before an attempt. */
  readonly resolveTimeoutMs: number;
  /**
   * How long a claimed delivery stays in flight before another dispatcher may retry it (a crashed one's); more than
   * `timeoutMs` + `resolveTimeoutMs` + `ROUND_WAIT_MS`, checked at start-up.
   */
  readonly leaseMs: number;
  readonly batchSize: number;
  readonly pollIntervalMs: number;
  /** Development and tests only: http:// and loopback targets are allowed. */
  readonly allowInsecureLocalTargets: boolean;
}

function webhooksConfig(read: ConfigReader): WebhooksConfig {
  const webhooks: WebhooksConfig = {
    run: read.boolean('webhooks.run'),
    retry: {
      baseMs: read.integer('webhooks.retry.baseMs', 0, 86_400_000),
      maxMs: read.integer('webhooks.retry.maxMs', 0, 86_400_000),
      factor: read.decimal('webhooks.retry.factor', 1, 100),
      jitter: read.decimal('webhooks.retry.jitter', 0, 1),
    },
    timeoutMs: read.integer('webhooks.timeoutMs', 1, 120_000),
    resolveTimeoutMs: read.integer('webhooks.resolveTimeoutMs', 1, 60_000),
    leaseMs: read.integer('webhooks.leaseMs', 1, 600_000),
    batchSize: read.integer('webhooks.batchSize', 1, 1000),
    pollIntervalMs: read.integer('webhooks.pollIntervalMs', 1, 60_000),
    allowInsecureLocalTargets: read.boolean('webhooks.allowInsecureLocalTargets'),
  };
  // A lease that an attempt can outlast lets a dispatcher claim a delivery still in flight (see webhook-lease.ts).
  const longest = longestUnrecordedAttemptMs(webhooks.timeoutMs, webhooks.resolveTimeoutMs);
  if (webhooks.leaseMs <= longest) {
    throw new ConfigError(
      'WEBHOOK_LEASE_MS',
      `must be more than WEBHOOK_TIMEOUT_MS (${webhooks.timeoutMs}) + WEBHOOK_DNS_TIMEOUT_MS ` +
        `(${webhooks.resolveTimeoutMs}) + the dispatcher round wait (${ROUND_WAIT_MS}) = ${longest} ms ` +
        `(got ${webhooks.leaseMs}): a delivery whose lease runs out during its attempt is sent again`,
    );
  }
  return webhooks;
}

function trustProxy(env: Env): boolean | number | string {
  const text = env.TRUST_PROXY?.trim();
  if (!text || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  if (!/^[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*$/.test(text)) {
    throw new ConfigError(
      'TRUST_PROXY',
      'must be true, false, a hop count, or comma-separated addresses/CIDRs',
    );
  }
  return text;
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
  const anonymousRateLimitPerMinute = read.integer('apiKeys.anonymousRateLimitPerMinute', 0, 1_000_000);
  const encryptionKey = apiKeySecret(env, environment);
  return {
    encryptionKey,
    previousEncryptionKey: previousApiKeySecret(env, encryptionKey),
    defaultRateLimitPerMinute,
    anonymousRateLimitPerMinute,
  };
}

const USD = /^[0-9]+(\.[0-9]+)?$/;
const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/**
 * A private key from its variable (never from a file in git), or the config's development default (well-known
 * Hardhat test keys); empty means none. The value is never echoed in errors.
 */
function privateKey(env: Env, variable: string, read: ConfigReader, path: string): `0x${string}` | null {
  const fromEnv = env[variable];
  const value = fromEnv !== undefined && fromEnv !== '' ? fromEnv : read.optionalText(path);
  if (value === null || value === '') return null;
  if (!PRIVATE_KEY.test(value))
    throw new ConfigError(variable, 'must be a 32-byte hex private key (0x + 64 hex digits)');
  return value as `0x${string}`;
}

function appFeesConfig(env: Env, read: ConfigReader): AppFeesConfig {
  const solverKey = privateKey(env, 'SOLVER_PRIVATE_KEY', read, 'chainRuntime.solverPrivateKey');
  return {
    run: read.boolean('appFees.run'),
    baseChainId: read.integer('appFees.baseChainId', 1, Number.MAX_SAFE_INTEGER),
    baseCurrency: read.text('appFees.baseCurrency', /^0x[0-9a-fA-F]{40}$/, 'an EVM token address'),
    claimFeeUsd: read.text('appFees.claimFeeUsd', USD, 'a decimal USD amount'),
    claimTtlSeconds: read.integer('appFees.claimTtlSeconds', 10, 86_400),
    payoutWaitMs: read.integer('appFees.payoutWaitMs', 0, 600_000),
    pollIntervalMs: read.integer('appFees.pollIntervalMs', 1, 60_000),
    treasuryPrivateKey:
      privateKey(env, 'TREASURY_PRIVATE_KEY', read, 'appFees.treasuryPrivateKey') ?? solverKey,
  };
}

function quotesConfig(read: ConfigReader, environment: string, chains: ChainRegistry): QuotesConfig {
  return {
    hubChainId: read.integer('quotes.hubChainId', 1, Number.MAX_SAFE_INTEGER),
    quoteTtlSeconds: read.integer('quotes.quoteTtlSeconds', 10, 86_400),
    fillDeadlineSeconds: read.integer('quotes.fillDeadlineSeconds', 10, 7 * 86_400),
    depositConfirmationTimeoutSeconds: read.integer(
      'quotes.depositConfirmationTimeoutSeconds',
      1,
      7 * 86_400,
    ),
    swapFeeBps: read.integer('quotes.swapFeeBps', 0, 1000),
    swapImpactBps: read.integer('quotes.swapImpactBps', 0, 1000),
    priceSource: priceSourceConfig(read, environment, chains),
    maxSubsidizationUsd: read.text('quotes.maxSubsidizationUsd', USD, 'a decimal USD amount'),
    gasPriceCacheMs: read.integer('quotes.gasPriceCacheMs', 0, 3_600_000),
    rpcTimeoutMs: read.integer('quotes.rpcTimeoutMs', 50, 60_000),
    perpsBUsdcFee: BigInt(
      read.text('quotes.perpsBUsdcFee', /^[0-9]{1,15}$/, 'an integer amount of USDC in its smallest unit'),
    ),
  };
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
