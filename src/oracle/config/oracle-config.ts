import { resolve } from 'node:path';
import { getAddress, type Hex, isAddress } from 'viem';
import { loadChainRegistry } from '../../chains/chain-registry.js';
import type { ChainRegistry } from '../../chains/chain-registry.js';
import { loadConfigFile } from '../../config/config-file.js';
import { ConfigError } from '../../config/config.error.js';
import type { Env } from '../../config/resolve-placeholders.js';
import type { OracleDomain } from '../messages/oracle-messages.js';
import { oracleApiKeys, type OracleApiKey } from './api-keys.js';
import { parsePeers, type OraclePeer } from './peers.js';

export type SigningConfig =
  | { readonly module: 'raw-private-key'; readonly privateKey: Hex }
  | {
      readonly module: 'cloud-kms';
      readonly keyId: string;
      readonly region: string;
      /** The KMS endpoint (`CLOUD_KMS_ENDPOINT`); default `https://kms.<region>.amazonaws.com`. */
      readonly endpoint: string;
    };

/** Everything an oracle instance runs with (docs/oracle.md, "Configuration"). */
export interface OracleConfig {
  readonly environment: string;
  readonly port: number;
  readonly chains: ChainRegistry;
  /** The EIP-712 domain of every signature: the hub chain and its oracle contract (`chains.hub.<ENVIRONMENT>.json`). */
  readonly domain: OracleDomain;
  readonly signing: SigningConfig;
  /** `API_KEYS`; null: the routes are open (production only with `ORACLE_ALLOW_OPEN=true`). */
  readonly apiKeys: readonly OracleApiKey[] | null;
  readonly peers: readonly OraclePeer[];
  readonly peerTimeoutMs: number;
  /** `SHADOW_MODE=true`: this instance signs, but marks its signatures `shadow` so no aggregator counts them. */
  readonly shadow: boolean;
  /** Each chain read is bounded by this (`ORACLE_RPC_TIMEOUT_MS`, default 5000). */
  readonly rpcTimeoutMs: number;
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/**
 * Reads the oracle's configuration from `env` (the process environment plus `/vault/secrets`, see vault-secrets.ts)
 * and the chain files of `ENVIRONMENT`. Throws a ConfigError naming the variable or file to fix.
 */
export function loadOracleConfig(env: Env, configDir = resolve('configs')): OracleConfig {
  const environment = env.ENVIRONMENT || 'development';
  return {
    environment,
    port: port(env),
    chains: loadChainRegistry(env, environment, configDir),
    domain: hubDomain(env, environment, configDir),
    signing: signingConfig(env),
    apiKeys: oracleApiKeys(env, environment),
    peers: env.PEERS ? parsePeers(env.PEERS) : [],
    peerTimeoutMs: integer(env, 'PEER_REQUEST_TIMEOUT_MS', 5000, 1, 600_000),
    shadow: boolean(env, 'SHADOW_MODE', false),
    rpcTimeoutMs: integer(env, 'ORACLE_RPC_TIMEOUT_MS', 5000, 1, 600_000),
  };
}

/** `HTTP_PORT`, then `PORT`, then 3000. */
function port(env: Env): number {
  if (env.HTTP_PORT) return integer(env, 'HTTP_PORT', 3000, 1, 65535);
  return integer(env, 'PORT', 3000, 1, 65535);
}

/** The domain from `configs/chains.hub.<environment>.json`: `{chainId, oracle, domain: {name, version}}`. */
export function hubDomain(env: Env, environment: string, configDir: string): OracleDomain {
  const { file, value } = loadConfigFile(configDir, 'chains.hub', environment, env);
  const hub = value as {
    chainId?: unknown;
    oracle?: unknown;
    domain?: { name?: unknown; version?: unknown };
  };
  const chainId = Number(hub.chainId);
  if (!Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new ConfigError(`${file} chainId`, `must be a positive integer (got ${String(hub.chainId)})`);
  }
  if (typeof hub.oracle !== 'string' || !isAddress(hub.oracle, { strict: false })) {
    throw new ConfigError(
      `${file} oracle`,
      `must be the hub's oracle contract address (got ${String(hub.oracle)})`,
    );
  }
  const name = hub.domain?.name;
  const version = hub.domain?.version;
  if (typeof name !== 'string' || !name || typeof version !== 'string' || !version) {
    throw new ConfigError(`${file} domain`, 'must be {name, version}, both non-empty strings');
  }
  return { name, version, chainId, verifyingContract: getAddress(hub.oracle) };
}

function signingConfig(env: Env): SigningConfig {
  const module = env.SIGNING_MODULE || 'raw-private-key';
  if (module === 'raw-private-key') {
    const key = env.ECDSA_PRIVATE_KEY;
    if (!key) throw new ConfigError('ECDSA_PRIVATE_KEY', 'is required with SIGNING_MODULE=raw-private-key');
    // Never echo the value: it is a secret.
    if (!PRIVATE_KEY.test(key)) throw new ConfigError('ECDSA_PRIVATE_KEY', 'must be 0x and 64 hex digits');
    return { module, privateKey: key as Hex };
  }
  if (module === 'cloud-kms') {
    const keyId = env.CLOUD_KMS_SIGNER_KEY_ID;
    const region = env.CLOUD_KMS_SIGNER_KEY_REGION;
    if (!keyId) throw new ConfigError('CLOUD_KMS_SIGNER_KEY_ID', 'is required with SIGNING_MODULE=cloud-kms');
    if (!region || !/^[a-z0-9-]+$/.test(region)) {
      throw new ConfigError(
        'CLOUD_KMS_SIGNER_KEY_REGION',
        'is required with SIGNING_MODULE=cloud-kms (e.g. us-east-1)',
      );
    }
    return {
      module,
      keyId,
      region,
      endpoint: env.CLOUD_KMS_ENDPOINT || `https://kms.${region}.amazonaws.com`,
    };
  }
  throw new ConfigError('SIGNING_MODULE', `must be raw-private-key or cloud-kms (got "${module}")`);
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${text}")`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  if (text !== 'true' && text !== 'false')
    throw new ConfigError(name, `must be true or false (got "${text}")`);
  return text === 'true';
}
