import { getAddress, isAddress } from 'viem';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { ConfigReader } from './config-reader.js';
import { ConfigError } from './config.error.js';

/**
 * Where quotes get USD prices (docs/prices.md):
 * - `feeds`: Chainlink-style feeds only; a missing, unreadable or refused price refuses the quote. Production.
 * - `feeds-with-table-fallback`: the feeds, and the fixed `table` only while the feed chain does not answer
 *   (logged). Development with `npm run devnet`, and still quoting without it.
 * - `table`: the fixed `table` only. Tests that need fixed prices.
 */
export type PriceSourceMode = 'feeds' | 'feeds-with-table-fallback' | 'table';
export const PRICE_SOURCE_MODES: readonly PriceSourceMode[] = ['feeds', 'feeds-with-table-fallback', 'table'];

/** One USD feed and how its answers are checked. */
export interface PriceFeedConfig {
  readonly chainId: number;
  /** The chain's RPC URL, from the chain registry (the feed chain must have one). */
  readonly rpcUrl: string;
  readonly address: `0x${string}`;
  readonly maxAgeSeconds: number;
  readonly maxDeviationBps: number | null;
  /**
   * What the feed must say it prices (`description()`, e.g. `"ETH / USD"`); null: not checked. Catches an address
   * that points at another asset's feed, which would price USDC at 3000.
   */
  readonly description: string | null;
}

export interface PriceFeedsConfig {
  /** Feeds by name (the asset: `ETH`, `USDC`). */
  readonly feeds: Readonly<Record<string, PriceFeedConfig>>;
  /** A currency's symbol (exact) → the feed that prices it (`WETH` → `ETH`). */
  readonly symbols: Readonly<Record<string, string>>;
  /** One currency on one chain → a feed, before its symbol is looked at. */
  readonly overrides: readonly {
    readonly chainId: number;
    readonly address: string;
    readonly feed: string;
  }[];
  /** How long one read of a feed is reused (0: every quote reads). Freshness is still checked on every use. */
  readonly cacheMs: number;
}

export type PriceSourceConfig =
  | { readonly mode: 'feeds'; readonly feeds: PriceFeedsConfig }
  | {
      readonly mode: 'feeds-with-table-fallback';
      readonly feeds: PriceFeedsConfig;
      readonly table: Readonly<Record<string, string>>;
    }
  | { readonly mode: 'table'; readonly table: Readonly<Record<string, string>> };

const USD = /^[0-9]+(\.[0-9]+)?$/;
const ROOT = 'quotes.priceSource';
const FEED_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * `quotes.priceSource` of the app config. Production must be `feeds` and hold no table at all, so a fixed price can
 * never reach a production quote. Every feed's chain must be listed with an RPC URL, every symbol and override must
 * name a configured feed.
 */
export function priceSourceConfig(
  read: ConfigReader,
  environment: string,
  chains: ChainRegistry,
): PriceSourceConfig {
  const mode = read.text(
    `${ROOT}.mode`,
    /^(feeds|feeds-with-table-fallback|table)$/,
    PRICE_SOURCE_MODES.join(', '),
  );
  const hasTable = read.has(`${ROOT}.table`);
  if (environment === 'production') {
    if (mode !== 'feeds') throw read.error(`${ROOT}.mode`, `must be "feeds" in production (got "${mode}")`);
    if (hasTable)
      throw read.error(`${ROOT}.table`, 'is not allowed in production: prices come from feeds only');
  }
  const table = () => read.stringMap(`${ROOT}.table`, USD, 'a decimal USD price such as "3000" or "0.9998"');
  const feeds = () => priceFeedsConfig(read, chains);
  switch (mode as PriceSourceMode) {
    case 'feeds':
      return { mode: 'feeds', feeds: feeds() };
    case 'feeds-with-table-fallback':
      return { mode: 'feeds-with-table-fallback', feeds: feeds(), table: table() };
    case 'table':
      return { mode: 'table', table: table() };
  }
}

function priceFeedsConfig(read: ConfigReader, chains: ChainRegistry): PriceFeedsConfig {
  const feeds: Record<string, PriceFeedConfig> = {};
  for (const name of read.keys(`${ROOT}.feeds`)) {
    const path = `${ROOT}.feeds.${name}`;
    const chainId = read.integer(`${path}.chainId`, 1, Number.MAX_SAFE_INTEGER);
    if (!FEED_NAME.test(name))
      throw read.error(path, 'must be named with letters, digits, _ and - (the asset: "ETH")');
    const chain = chains.find(chainId);
    if (!chain || chain.vmType !== 'evm')
      throw read.error(`${path}.chainId`, `must be a listed EVM chain (got ${chainId})`);
    if (!chain.rpcUrl) {
      const problem = `is required: chain ${chainId} (${chain.name}) holds the price feeds (${path})`;
      throw chain.rpcUrlVariable
        ? new ConfigError(chain.rpcUrlVariable, problem)
        : read.error(`${path}.chainId`, `names chain ${chainId}, which has no RPC URL to read its feeds`);
    }
    const address = read.text(`${path}.address`, /^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte address');
    if (!isAddress(address, { strict: false })) throw read.error(`${path}.address`, 'is not a valid address');
    feeds[name] = {
      chainId,
      rpcUrl: chain.rpcUrl,
      address: getAddress(address),
      maxAgeSeconds: read.integer(`${path}.maxAgeSeconds`, 1, 366 * 86_400),
      maxDeviationBps: read.has(`${path}.maxDeviationBps`)
        ? read.integer(`${path}.maxDeviationBps`, 1, 1_000_000)
        : null,
      description: read.has(`${path}.description`)
        ? read.text(`${path}.description`, /^.+$/, 'a feed description')
        : null,
    };
  }
  const symbols = read.stringMap(`${ROOT}.symbols`, /^.+$/, 'the name of a feed');
  for (const [symbol, feed] of Object.entries(symbols)) {
    if (!(feed in feeds))
      throw read.error(`${ROOT}.symbols`, `"${symbol}" names feed "${feed}", which is not configured`);
  }
  const overrides = Array.from(
    { length: read.has(`${ROOT}.overrides`) ? read.length(`${ROOT}.overrides`) : 0 },
    (_, i) => {
      const path = `${ROOT}.overrides.${i}`;
      const feed = read.text(`${path}.feed`, /^.+$/, 'the name of a feed');
      if (!(feed in feeds)) throw read.error(`${path}.feed`, `names feed "${feed}", which is not configured`);
      return {
        chainId: read.integer(`${path}.chainId`, 1, Number.MAX_SAFE_INTEGER),
        address: read.text(`${path}.address`, /^.+$/, 'a currency address'),
        feed,
      };
    },
  );
  return { feeds, symbols, overrides, cacheMs: read.integer(`${ROOT}.cacheMs`, 0, 3_600_000) };
}

/**
 * The listed currencies no feed prices (`"BNB on 56"`): quotes in them are refused with `PRICE_UNAVAILABLE`
 * (`no-feed`), so start-up names them once rather than letting the first user find out.
 */
export function currenciesWithoutFeed(config: PriceFeedsConfig, chains: ChainRegistry): string[] {
  const overridden = new Set(config.overrides.map((o) => `${o.chainId}:${o.address.toLowerCase()}`));
  return chains
    .all()
    .flatMap((chain) =>
      [chain.nativeCurrency, ...chain.currencies]
        .filter(
          (currency, index, all) =>
            all.findIndex((other) => other.address === currency.address) === index &&
            !(currency.symbol in config.symbols) &&
            !overridden.has(`${chain.id}:${currency.address.toLowerCase()}`),
        )
        .map((currency) => `${currency.symbol} on ${chain.id}`),
    );
}
