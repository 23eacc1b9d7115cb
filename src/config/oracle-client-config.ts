import { type Address, getAddress, isAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { OracleDomain } from '../oracle/messages/oracle-messages.js';
import { oracleApiKeys } from '../oracle/config/api-keys.js';
import { hubDomain, type OracleConfig } from '../oracle/config/oracle-config.js';
import { parsePeers } from '../oracle/config/peers.js';
import type { ConfigReader } from './config-reader.js';
import { ConfigError } from './config.error.js';
import type { Env } from './resolve-placeholders.js';

/**
 * Ferry and its attestation oracles (docs/oracle.md, "Ferry and its oracles"): the oracle mounted in this process,
 * the oracle instances Ferry asks, the signer set it trusts and the quorum a deposit needs before it is filled.
 */
export interface OracleClientConfig {
  /** The oracle's routes and service in this process (`oracle.mount`, with a raw signing key), or null. */
  readonly mounted: OracleConfig | null;
  /** Oracle instances asked over HTTP (`ORACLE_URLS`, comma-separated); none: the mounted oracle is asked. */
  readonly urls: readonly string[];
  /** The `x-api-key` Ferry presents to them (`ORACLE_API_KEY`). */
  readonly apiKey: string | null;
  /** Signers that must attest a deposit before it is filled (`ORACLE_QUORUM`); 0: attestations are only recorded. */
  readonly quorum: number;
  /** The signer set Ferry trusts (`ORACLE_SIGNERS`); default: the mounted oracle's signer. */
  readonly signers: readonly Address[];
  /** The hub domain signatures are bound to; null when Ferry talks to no oracle (then the hub file is not read). */
  readonly domain: OracleDomain | null;
  readonly timeoutMs: number;
}

export function oracleClientConfig(
  env: Env,
  read: ConfigReader,
  environment: string,
  configDir: string,
  chains: ChainRegistry,
): OracleClientConfig {
  const mount = read.boolean('oracle.mount');
  const key = env.ECDSA_PRIVATE_KEY || read.optionalText('oracle.signerPrivateKey') || '';
  if (mount && !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new ConfigError(
      'ECDSA_PRIVATE_KEY',
      'must be a 32-byte hex private key when the oracle is mounted (ORACLE_MOUNT)',
    );
  }
  const urls = list(read.optionalText('oracle.urls')).map((url) => {
    if (!/^https?:\/\/\S+$/.test(url))
      throw new ConfigError('ORACLE_URLS', `holds "${url}", not an http(s) URL`);
    return url.replace(/\/+$/, '');
  });
  // The hub file is read only when Ferry talks to an oracle: a deployment without one needs no hub settings.
  const domain = mount || urls.length > 0 ? hubDomain(env, environment, configDir) : null;
  const mounted: OracleConfig | null =
    mount && domain
      ? {
          environment,
          port: 0,
          chains,
          domain,
          signing: { module: 'raw-private-key', privateKey: key as `0x${string}` },
          apiKeys: oracleApiKeys(env, environment, true),
          peers: env.PEERS ? parsePeers(env.PEERS) : [],
          peerTimeoutMs: read.integer('oracle.peerTimeoutMs', 1, 600_000),
          shadow: env.SHADOW_MODE === 'true',
          rpcTimeoutMs: read.integer('oracle.timeoutMs', 1, 600_000),
        }
      : null;
  const signers = list(read.optionalText('oracle.signers')).map((address) => {
    if (!isAddress(address, { strict: false })) {
      throw new ConfigError('ORACLE_SIGNERS', `holds "${address}", not an address`);
    }
    return getAddress(address);
  });
  if (signers.length === 0 && mounted) signers.push(privateKeyToAccount(key as `0x${string}`).address);
  const quorum = read.integer('oracle.quorum', 0, 100);
  if (quorum > 0 && quorum > signers.length) {
    throw new ConfigError(
      'ORACLE_QUORUM',
      `is ${quorum} but ORACLE_SIGNERS lists ${signers.length} signer(s)`,
    );
  }
  if (quorum > 0 && urls.length === 0 && !mounted) {
    throw new ConfigError('ORACLE_QUORUM', 'needs oracles to ask: set ORACLE_URLS or mount the oracle');
  }
  return {
    mounted,
    urls,
    apiKey: read.optionalText('oracle.apiKey') || null,
    quorum,
    signers,
    domain,
    timeoutMs: read.integer('oracle.timeoutMs', 1, 600_000),
  };
}

function list(text: string | null): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
