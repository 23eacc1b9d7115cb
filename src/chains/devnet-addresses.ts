import { ConfigError } from '../config/config.error.js';
import type { Origins } from '../config/resolve-placeholders.js';

/** The optional file `npm run devnet` writes with the addresses it deployed (development only, gitignored). */
export const DEVNET_ADDRESSES_FILE = 'devnet.addresses.json';

/** `configs/devnet.addresses.json`: per chain id, addresses that replace the checked-in placeholders. */
export interface DevnetAddresses {
  readonly chains: Readonly<
    Record<
      string,
      {
        readonly depository?: string;
        readonly callExecutor?: string;
        readonly depositAddressFactory?: string;
        readonly solver?: string;
        /** Currency address by symbol (`{"USDC": "0x…", "WETH": "0x…"}`). */
        readonly currencies?: Readonly<Record<string, string>>;
      }
    >
  >;
}

/** A JSON object (not null, not an array). */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The addresses `npm run devnet` writes per chain (beside `currencies`), replacing the chains file's. */
const DEVNET_ADDRESS_KEYS = ['depository', 'callExecutor', 'depositAddressFactory', 'solver'] as const;

/**
 * Replaces depository, solver and currency addresses with those in `configs/devnet.addresses.json`, recording each
 * replaced path in `origins` so a bad value is reported against the overrides file.
 */
export function applyDevnetAddresses(
  value: unknown,
  overrides: unknown,
  file: string,
  origins: Origins,
): unknown {
  const fail = (path: string, problem: string) => new ConfigError(`${file}: ${path}`, problem);
  if (!isObject(overrides) || !isObject(overrides.chains)) {
    throw fail('chains', 'must be an object keyed by chain id');
  }
  if (!isObject(value) || !Array.isArray(value.chains)) return value;
  const chains = [...(value.chains as unknown[])];
  for (const [chainId, entry] of Object.entries(overrides.chains)) {
    const index = chains.findIndex((chain) => isObject(chain) && String(chain.id) === chainId);
    if (index < 0) throw fail(`chains.${chainId}`, 'names no chain of the chains file');
    if (!isObject(entry)) throw fail(`chains.${chainId}`, 'must be an object');
    const unknown = Object.keys(entry).find(
      (key) => !([...DEVNET_ADDRESS_KEYS, 'currencies'] as readonly string[]).includes(key),
    );
    if (unknown) {
      throw fail(
        `chains.${chainId}.${unknown}`,
        'is not a known field (depository, callExecutor, depositAddressFactory, solver, currencies)',
      );
    }
    const chain = { ...(chains[index] as Json) };
    for (const key of DEVNET_ADDRESS_KEYS) {
      if (entry[key] === undefined) continue;
      if (typeof entry[key] !== 'string') throw fail(`chains.${chainId}.${key}`, 'must be a string');
      chain[key] = entry[key];
      origins.set(`chains[${index}].${key}`, `${file}: chains.${chainId}.${key}`);
    }
    if (entry.currencies !== undefined) {
      if (!isObject(entry.currencies))
        throw fail(`chains.${chainId}.currencies`, 'must map symbols to addresses');
      const currencies = Array.isArray(chain.currencies) ? [...(chain.currencies as unknown[])] : [];
      for (const [symbol, address] of Object.entries(entry.currencies)) {
        const matches = currencies.flatMap((currency, at) =>
          isObject(currency) && currency.symbol === symbol ? [at] : [],
        );
        if (matches.length !== 1) {
          const problem = matches.length === 0 ? 'names no currency' : 'names several currencies';
          throw fail(`chains.${chainId}.currencies.${symbol}`, `${problem} of chain ${chainId}`);
        }
        const at = matches[0];
        if (typeof address !== 'string')
          throw fail(`chains.${chainId}.currencies.${symbol}`, 'must be a string');
        currencies[at] = { ...(currencies[at] as Json), address };
        origins.set(
          `chains[${index}].currencies[${at}].address`,
          `${file}: chains.${chainId}.currencies.${symbol}`,
        );
      }
      chain.currencies = currencies;
    }
    chains[index] = chain;
  }
  return { ...value, chains };
}
