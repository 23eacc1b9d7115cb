import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../config/config.error.js';
import { loadConfigFile } from '../config/config-file.js';
import type { Env, Origins } from '../config/resolve-placeholders.js';
import { QuoteError } from '../quotes/domain/quote-error.js';
import { addressKey } from './addresses.js';
import type { ChainCurrency, ChainInfo } from './chain.js';
import { Context, type ParsedChain, parseChainsFile, withoutCredentials } from './chains-file-parse.js';
import { applyDevnetAddresses, DEVNET_ADDRESSES_FILE, isObject } from './devnet-addresses.js';

export { withoutCredentials } from './chains-file-parse.js';
export { DEVNET_ADDRESSES_FILE, type DevnetAddresses } from './devnet-addresses.js';

/** A `${VAR}` placeholder's variable name. */
const PLACEHOLDER_VARIABLE = /\$\{([A-Z_][A-Z0-9_]*)/;

/** `configs/chains.<ENVIRONMENT>.json` after its `${VAR}` placeholders are resolved (docs/chains.md). */
export interface ChainsFile {
  readonly chains: readonly ChainsFileChain[];
}

/** Numbers and booleans may arrive as strings: a placeholder always resolves to text. */
type Num = number | string;
type Bool = boolean | string;

export interface ChainsFileChain {
  readonly id: Num;
  readonly name: string;
  readonly displayName: string;
  readonly vmType: string;
  /** Empty or absent: no RPC in this environment. */
  readonly rpcUrl?: string;
  /** The variable `rpcUrl` comes from; the loader fills it from the placeholder. */
  readonly rpcUrlVariable?: string;
  /**
   * What `GET /chains` shows as `httpRpcUrl`. When the field is present it is authoritative (empty: show none), so
   * a private `rpcUrl` is never shown; when absent, `rpcUrl` is shown without user info, query and fragment.
   */
  readonly publicRpcUrl?: string;
  /** Shown to clients by `GET /chains` (without user info, query and fragment): put only a public URL here. */
  readonly wsRpcUrl?: string;
  readonly explorerUrl?: string;
  readonly depository: string;
  /** `FerryCallExecutor` (EVM only): fills with destination calls go through it. Absent or empty: none. */
  readonly callExecutor?: string;
  readonly solver: string;
  readonly depositEnabled: Bool;
  readonly finality: { readonly blocks: Num; readonly seconds: Num; readonly tag?: 'finalized' };
  readonly timeEstimateSeconds: Num;
  readonly gas: {
    readonly defaultPriceWei: Num;
    readonly depositUnits: Num;
    readonly erc20DepositUnits: Num;
    readonly fillUnits: Num;
    /** The most a fee-bumped replacement may bid per gas (EVM); absent: 100 × `defaultPriceWei`. */
    readonly maxFeePerGasWei?: Num;
  };
  readonly nativeCurrency: ChainsFileCurrency;
  /** The chain's other currencies (the native one is `nativeCurrency`). */
  readonly currencies: readonly ChainsFileCurrency[];
}

export interface ChainsFileCurrency {
  /** Implied by the chain; when given it must be the chain's id. */
  readonly chainId?: Num;
  readonly address: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: Num;
  readonly metadata: { readonly logoURI: string; readonly verified: Bool; readonly isNative?: Bool };
  readonly supportsPermit?: Bool;
  readonly wrappedNative?: Bool;
  readonly eip712?: { readonly name: string; readonly version: string };
}

export interface ChainRegistryOptions {
  /** Names the configuration in errors (the file path when loaded from disk). */
  readonly source?: string;
  /** Where placeholder values came from (`chains[0].rpcUrl` → `RPC_URL_1`), so errors name the variable. */
  readonly origins?: Origins;
}

/**
 * The chains and currencies Ferry serves, validated once at start-up. Lookups answer QuoteErrors the HTTP edge maps
 * to 400 (UNSUPPORTED_CHAIN, UNSUPPORTED_CURRENCY). `ChainInfo.currencies` lists the native currency first, then
 * the others in file order. Addresses are normalised: EVM checksummed, perps exchange A token ids lowercase.
 *
 * @example new ChainRegistry({ chains: [...] }).currency(8453, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913')
 */
export class ChainRegistry {
  private readonly byId: ReadonlyMap<number, ParsedChain>;

  /** Validates a parsed chains file; throws a ConfigError naming the chain and field at the first problem. */
  constructor(file: ChainsFile, options: ChainRegistryOptions = {}) {
    const context = new Context(options.source ?? 'chains config', options.origins ?? new Map());
    this.byId = new Map(parseChainsFile(file, context).map((chain) => [chain.info.id, chain]));
  }

  /** Every chain, in file order. */
  all(): readonly ChainInfo[] {
    return [...this.byId.values()].map((chain) => chain.info);
  }

  find(chainId: number): ChainInfo | undefined {
    return this.byId.get(chainId)?.info;
  }

  /** The chain, or a QuoteError UNSUPPORTED_CHAIN `{chainId}`. */
  chain(chainId: number): ChainInfo {
    return this.entry(chainId).info;
  }

  /** The currency at `address` on the chain (case-insensitive on EVM and perps exchange A, exact elsewhere). */
  findCurrency(chainId: number, address: string): ChainCurrency | undefined {
    const chain = this.byId.get(chainId);
    // Unvalidated input may reach here: anything but a string is simply not a listed currency.
    return chain && typeof address === 'string'
      ? chain.currencies.get(addressKey(chain.info.vmType, address))
      : undefined;
  }

  /**
   * The currency at `address` on the chain; QuoteError UNSUPPORTED_CHAIN for an unknown chain and
   * UNSUPPORTED_CURRENCY `{chainId, currency}` for an address the chain does not list.
   */
  currency(chainId: number, address: string): ChainCurrency {
    const chain = this.entry(chainId);
    const currency = this.findCurrency(chainId, address);
    if (!currency) {
      throw new QuoteError(
        'UNSUPPORTED_CURRENCY',
        `Currency ${address} is not supported on chain ${chainId} (${chain.info.displayName}); GET /chains lists its currencies`,
        { chainId, currency: address },
      );
    }
    return currency;
  }

  nativeCurrency(chainId: number): ChainCurrency {
    return this.entry(chainId).info.nativeCurrency;
  }

  /** The chain's wrapped native token (WETH-like), or null when it has none (perps exchanges). */
  wrappedNative(chainId: number): ChainCurrency | null {
    return this.entry(chainId).info.currencies.find((currency) => currency.wrappedNative) ?? null;
  }

  /**
   * The HTTP RPC URL clients may see, or null: the chain's `publicRpcUrl` when the field is present (production
   * declares it on every chain, so private RPC URLs never show), else the RPC URL without user info, query and
   * fragment (where providers put credentials). A key in the URL's path needs `publicRpcUrl` (docs/chains.md).
   */
  publicRpcUrl(chainId: number): string | null {
    return this.entry(chainId).publicRpcUrl;
  }

  /** The WebSocket RPC URL clients may see, stripped like {@link publicRpcUrl}; null when none. */
  publicWsRpcUrl(chainId: number): string | null {
    const url = this.entry(chainId).info.wsRpcUrl;
    return url === null ? null : withoutCredentials(url);
  }

  private entry(chainId: number): ParsedChain {
    const chain = this.byId.get(chainId);
    if (!chain) {
      throw new QuoteError('UNSUPPORTED_CHAIN', `Chain ${chainId} is not supported; GET /chains lists them`, {
        chainId,
      });
    }
    return chain;
  }
}

/**
 * Loads `configs/chains.<environment>.json` with placeholders resolved from `env`. In development the optional
 * `configs/devnet.addresses.json` (written by `npm run devnet`) replaces depository, solver and currency addresses.
 * Throws a ConfigError naming the variable, or the file and field, to fix.
 */
export function loadChainRegistry(
  env: Env,
  environment: string,
  configDir: string = resolve('configs'),
): ChainRegistry {
  const loaded = loadConfigFile(configDir, 'chains', environment, env);
  const origins = new Map(loaded.origins);
  let value = withRpcUrlVariables(loaded.value, readJson(loaded.file));
  const overridesFile = join(configDir, DEVNET_ADDRESSES_FILE);
  if (environment === 'development' && existsSync(overridesFile)) {
    value = applyDevnetAddresses(value, readJson(overridesFile), overridesFile, origins);
  }
  return new ChainRegistry(value as ChainsFile, { source: loaded.file, origins });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(file, `is not valid JSON (${(error as Error).message})`);
  }
}

/** Fills each chain's `rpcUrlVariable` from the placeholder its raw `rpcUrl` names (`${RPC_URL_8453:-}`). */
function withRpcUrlVariables(resolved: unknown, raw: unknown): unknown {
  if (
    !isObject(resolved) ||
    !Array.isArray(resolved.chains) ||
    !isObject(raw) ||
    !Array.isArray(raw.chains)
  ) {
    return resolved;
  }
  const rawChains = raw.chains as unknown[];
  return {
    ...resolved,
    chains: resolved.chains.map((chain: unknown, index) => {
      const rawChain = rawChains[index];
      if (!isObject(chain) || chain.rpcUrlVariable !== undefined || !isObject(rawChain)) return chain;
      const variable =
        typeof rawChain.rpcUrl === 'string' ? PLACEHOLDER_VARIABLE.exec(rawChain.rpcUrl)?.[1] : undefined;
      return variable ? { ...chain, rpcUrlVariable: variable } : chain;
    }),
  };
}
