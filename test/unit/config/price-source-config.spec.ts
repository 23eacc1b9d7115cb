import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadAppConfig } from '../../../src/config/app-config.js';
import { currenciesWithoutFeed, priceSourceConfig } from '../../../src/config/price-source-config.js';
import { devnetPriceFeedAddresses } from '../../../scripts/devnet/deploy-price-feeds.js';
import { PRODUCTION_CHAINS_ENV } from '../../support/production-env.js';
import { configError } from '../../support/config-error.js';

const configs = resolve('configs');
const SECRET = { API_KEY_ENCRYPTION_KEY: '11'.repeat(32) };
const PRODUCTION: Record<string, string> = { ...SECRET, ...PRODUCTION_CHAINS_ENV, ENVIRONMENT: 'production' };

/** A copy of the checked-in production files with `quotes.priceSource` edited. */
function productionWith(edit: (priceSource: Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-prices-'));
  copyFileSync(join(configs, 'chains.production.json'), join(dir, 'chains.production.json'));
  const app = JSON.parse(readFileSync(join(configs, 'app.production.json'), 'utf8'));
  edit(app.quotes.priceSource);
  writeFileSync(join(dir, 'app.production.json'), JSON.stringify(app));
  return dir;
}

describe(priceSourceConfig.name, () => {
  it('development reads the devnet feeds, with the table as the named fallback', () => {
    const sut = loadAppConfig({ ...SECRET }, configs).quotes.priceSource;
    expect(sut.mode).toBe('feeds-with-table-fallback');
    if (sut.mode !== 'feeds-with-table-fallback') return;
    const devnet = devnetPriceFeedAddresses();
    for (const [asset, address] of Object.entries(devnet)) {
      expect(sut.feeds.feeds[asset]).toMatchObject({
        chainId: 31337,
        address,
        rpcUrl: 'http://127.0.0.1:8545',
      });
    }
    expect(sut.feeds.symbols.WETH).toBe('ETH');
    expect(sut.table.ETH).toBe('3000');
  });

  it('prices every symbol of the development table with a feed (the feeds replace the table)', () => {
    const sut = loadAppConfig({ ...SECRET }, configs).quotes.priceSource;
    if (sut.mode !== 'feeds-with-table-fallback') throw new Error(sut.mode);
    expect(Object.keys(sut.feeds.symbols).sort()).toEqual(Object.keys(sut.table).sort());
  });

  it('tests price from the table unless PRICE_SOURCE=feeds, which reads the devnet at DEVNET_A_RPC_URL', () => {
    expect(loadAppConfig({ ...SECRET, ENVIRONMENT: 'test' }, configs).quotes.priceSource.mode).toBe('table');
    const sut = loadAppConfig(
      { ...SECRET, ENVIRONMENT: 'test', PRICE_SOURCE: 'feeds', DEVNET_A_RPC_URL: 'http://127.0.0.1:9999' },
      configs,
    ).quotes.priceSource;
    expect(sut.mode).toBe('feeds');
    if (sut.mode === 'feeds') expect(sut.feeds.feeds.ETH.rpcUrl).toBe('http://127.0.0.1:9999');
  });

  it('production is feeds only, on chain 1, with no table', () => {
    const sut = loadAppConfig(PRODUCTION, configs).quotes.priceSource;
    expect(sut.mode).toBe('feeds');
    expect('table' in sut).toBe(false);
    if (sut.mode !== 'feeds') return;
    expect(sut.feeds.feeds.ETH).toMatchObject({
      chainId: 1,
      address: '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419',
      rpcUrl: PRODUCTION_CHAINS_ENV.RPC_URL_1,
    });
  });

  it('stops production start-up without the feed chain RPC, naming the variable', () => {
    const { RPC_URL_1: _, ...withoutRpc } = PRODUCTION;
    const error = configError(() => loadAppConfig(withoutRpc, configs));
    expect(error.variable).toBe('RPC_URL_1');
    expect(error.message).toMatch(/RPC_URL_1 is required: chain 1 \(ethereum\) holds the price feeds/);
  });

  it.each([
    [
      'a table fallback',
      (ps: Record<string, unknown>) => (ps.mode = 'feeds-with-table-fallback'),
      /mode must be "feeds" in production/,
    ],
    ['the table', (ps: Record<string, unknown>) => (ps.mode = 'table'), /mode must be "feeds" in production/],
    [
      'a table beside the feeds',
      (ps: Record<string, unknown>) => (ps.table = { ETH: '3000' }),
      /table is not allowed in production/,
    ],
    [
      'a symbol naming no feed',
      (ps: Record<string, unknown>) => ((ps.symbols as Record<string, string>).WETH = 'WETH'),
      /"WETH" names feed "WETH", which is not configured/,
    ],
    [
      'a feed on an unlisted chain',
      (ps: Record<string, unknown>) => ((ps.feeds as Record<string, { chainId: number }>).ETH.chainId = 5),
      /feeds\.ETH\.chainId must be a listed EVM chain/,
    ],
    [
      'a malformed feed address',
      (ps: Record<string, unknown>) =>
        ((ps.feeds as Record<string, { address: string }>).ETH.address = '0x12'),
      /feeds\.ETH\.address must be a 0x-prefixed 20-byte address/,
    ],
  ])('refuses a production config with %s', (_, edit, message) => {
    const dir = productionWith(edit);
    expect(configError(() => loadAppConfig(PRODUCTION, dir)).message).toMatch(message);
  });

  it('names the listed currencies no feed prices: none in development, BNB, POL and HYPE in production', () => {
    const development = loadAppConfig({ ...SECRET }, configs);
    if (development.quotes.priceSource.mode === 'table') throw new Error('table');
    expect(currenciesWithoutFeed(development.quotes.priceSource.feeds, development.chains)).toEqual([]);

    const production = loadAppConfig(PRODUCTION, configs);
    if (production.quotes.priceSource.mode === 'table') throw new Error('table');
    const unpriced = currenciesWithoutFeed(production.quotes.priceSource.feeds, production.chains);
    expect(unpriced).toEqual(
      expect.arrayContaining([
        'BNB on 56',
        'WBNB on 56',
        'POL on 137',
        'WPOL on 137',
        'HYPE on 999',
        'WHYPE on 999',
      ]),
    );
    expect(unpriced.filter((entry) => !/^(W?BNB|W?POL|W?HYPE) /.test(entry))).toEqual([]);
  });

  it('checks the feed each symbol names describes that asset (the devnet feeds say "<ASSET> / USD")', () => {
    for (const environment of ['development', 'test', 'production']) {
      const env =
        environment === 'production'
          ? PRODUCTION
          : { ...SECRET, ENVIRONMENT: environment, PRICE_SOURCE: 'feeds' };
      const sut = loadAppConfig(env, configs).quotes.priceSource;
      if (sut.mode === 'table') throw new Error('table');
      for (const [name, feed] of Object.entries(sut.feeds.feeds))
        expect(feed.description).toBe(`${name} / USD`);
    }
  });
});
