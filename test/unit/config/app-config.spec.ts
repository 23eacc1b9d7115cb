import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadAppConfig } from '../../../src/config/app-config.js';
import { ConfigError } from '../../../src/config/config.error.js';
import { resolvePlaceholders } from '../../../src/config/resolve-placeholders.js';
import { PRODUCTION_CHAINS_ENV, PRODUCTION_HUB_ENV } from '../../support/production-env.js';
import { configError } from '../../support/config-error.js';

const configs = resolve('configs');
/** A fixed secret, so loading the config never writes the generated one into ./data. */
const SECRET = { API_KEY_ENCRYPTION_KEY: '11'.repeat(32) };

describe(resolvePlaceholders.name, () => {
  it('resolves variables and defaults in nested strings, recording where each value came from', () => {
    const origins = new Map<string, string>();
    const sut = resolvePlaceholders(
      { rpc: 'https://${HOST}/v1', port: '${PORT:-3000}', list: ['${A:-x}', 1, null] },
      { HOST: 'node.example', A: 'set' },
      origins,
    );
    expect(sut).toEqual({ rpc: 'https://node.example/v1', port: '3000', list: ['set', 1, null] });
    expect(origins.get('rpc')).toBe('HOST');
    expect(origins.get('list[0]')).toBe('A');
  });

  it('stops with the name of a required variable that is unset', () => {
    expect(() => resolvePlaceholders({ chains: [{ rpc: '${RPC_URL_31337}' }] }, {})).toThrow(
      'Invalid configuration: RPC_URL_31337 is required (referenced by chains[0].rpc)',
    );
  });
});

describe(loadAppConfig.name, () => {
  it('defaults to development on embedded storage with the PostgreSQL event store', () => {
    const sut = loadAppConfig({ ...SECRET }, configs);
    expect(sut.environment).toBe('development');
    expect(sut.http.port).toBe(3000);
    expect(sut.database).toEqual({ kind: 'pglite', dataDir: resolve('data') });
    expect(sut.eventStore).toEqual({ kind: 'postgres' });
  });

  it('reads PORT, DATABASE_URL and EVENTSTORE_URL', () => {
    const sut = loadAppConfig(
      {
        ...SECRET,
        PORT: '8080',
        DATABASE_URL: 'postgres://u@db:5432/ferry',
        EVENTSTORE_URL: 'esdb://es:2113?tls=false',
      },
      configs,
    );
    expect(sut.http.port).toBe(8080);
    expect(sut.database).toEqual({ kind: 'postgres', url: 'postgres://u@db:5432/ferry' });
    expect(sut.eventStore).toEqual({ kind: 'esdb', url: 'esdb://es:2113?tls=false' });
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer'],
    [{ PORT: '70000' }, 'PORT must be between 1 and 65535'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a postgres:// or postgresql:// URL'],
    [{ EVENTSTORE_URL: 'http://es' }, 'EVENTSTORE_URL must be an esdb://'],
    [{ ENVIRONMENT: 'staging' }, 'ENVIRONMENT is "staging" but'],
    [{ ENVIRONMENT: '../etc' }, 'ENVIRONMENT must be lowercase letters'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
    [{ PROJECTIONS_RUN: 'maybe' }, 'PROJECTIONS_RUN must be true or false'],
  ])('stops start-up naming the variable for %j', (env, message) => {
    let error: unknown;
    try {
      loadAppConfig({ ...SECRET, ...env }, configs);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`Invalid configuration: ${message}`);
    expect((error as Error).message).not.toContain('\n');
  });

  it('names the config file and path when a value without a variable is malformed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-config-'));
    writeFileSync(
      join(dir, 'app.broken.json'),
      JSON.stringify({ http: { port: 3000, bodyLimitBytes: 'lots' } }),
    );
    expect(() => loadAppConfig({ ...SECRET, ENVIRONMENT: 'broken' }, dir)).toThrow(
      /app\.broken\.json: http\.bodyLimitBytes must be an integer/,
    );
  });

  it("reads perps exchange B's usdcFee from the config as an exact amount, and refuses one that is not an integer", () => {
    expect(loadAppConfig({ ...SECRET, ENVIRONMENT: 'test' }, configs).quotes.perpsBUsdcFee).toBe(20000n);
    const dir = mkdtempSync(join(tmpdir(), 'ferry-config-'));
    const test = JSON.parse(readFileSync(join(configs, 'app.test.json'), 'utf8')) as { quotes: object };
    writeFileSync(
      join(dir, 'app.fee.json'),
      JSON.stringify({ ...test, quotes: { ...test.quotes, perpsBUsdcFee: '0.02' } }),
    );
    for (const name of ['chains.test.json'])
      writeFileSync(join(dir, name.replace('test', 'fee')), readFileSync(join(configs, name)));
    expect(() => loadAppConfig({ ...SECRET, ENVIRONMENT: 'fee' }, dir)).toThrow(/quotes\.perpsBUsdcFee/);
  });

  it("refuses a webhook lease that an attempt can outlast (timeout + DNS bound + a round's wait)", () => {
    // The default 30 s lease with a 60 s timeout: a dispatcher would claim its own in-flight delivery again.
    expect(() => loadAppConfig({ ...SECRET, WEBHOOK_TIMEOUT_MS: '60000' }, configs)).toThrow(ConfigError);
    for (const environment of ['development', 'test']) {
      const env = {
        ...SECRET,
        ENVIRONMENT: environment,
        WEBHOOK_TIMEOUT_MS: '25000',
        WEBHOOK_LEASE_MS: '30000',
      };
      expect(() => loadAppConfig(env, configs)).toThrow(
        'Invalid configuration: WEBHOOK_LEASE_MS must be more than WEBHOOK_TIMEOUT_MS (25000) + WEBHOOK_DNS_TIMEOUT_MS (5000) + the dispatcher round wait (1000) = 31000 ms (got 30000)',
      );
    }
    const sut = loadAppConfig({ ...SECRET, WEBHOOK_TIMEOUT_MS: '23999', WEBHOOK_LEASE_MS: '30000' }, configs);
    expect(sut.webhooks).toMatchObject({ timeoutMs: 23_999, leaseMs: 30_000, resolveTimeoutMs: 5_000 });
    // A shorter DNS bound makes room for a shorter lease (tests on loopback IP literals).
    expect(
      loadAppConfig(
        { ...SECRET, WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_DNS_TIMEOUT_MS: '100', WEBHOOK_LEASE_MS: '1401' },
        configs,
      ).webhooks,
    ).toMatchObject({ timeoutMs: 300, resolveTimeoutMs: 100, leaseMs: 1401 });
    expect(() =>
      loadAppConfig(
        { ...SECRET, WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_DNS_TIMEOUT_MS: '100', WEBHOOK_LEASE_MS: '1400' },
        configs,
      ),
    ).toThrow(/WEBHOOK_LEASE_MS must be more than .* = 1400 ms \(got 1400\)/);
  });
});

describe('the oracle mounted in the API process (ORACLE_MOUNT)', () => {
  const KEY = `0x${'4b'.repeat(32)}`;
  const production = {
    ...SECRET,
    ...PRODUCTION_CHAINS_ENV,
    ...PRODUCTION_HUB_ENV,
    ENVIRONMENT: 'production',
    ORACLE_MOUNT: 'true',
    ECDSA_PRIVATE_KEY: KEY,
  };

  it("refuses to start in production without API_KEYS (its routes would answer anyone on the API's port)", () => {
    const error = configError(() => loadAppConfig(production, configs));

    expect(error.variable).toBe('API_KEYS');
    expect(error.message).toMatch(/^Invalid configuration: API_KEYS is required in production/);
    expect(error.message).toContain('ORACLE_ALLOW_OPEN=true');
  });

  it('mounts it open in production only with ORACLE_ALLOW_OPEN=true, and keyed with API_KEYS', () => {
    expect(
      loadAppConfig({ ...production, ORACLE_ALLOW_OPEN: 'true' }, configs).oracle.mounted?.apiKeys,
    ).toBeNull();
    const keyed = loadAppConfig({ ...production, API_KEYS: 'k-a:ops' }, configs).oracle.mounted;
    expect(keyed?.apiKeys?.map((key) => key.label)).toEqual(['ops']);
  });

  it('needs no API_KEYS in production when nothing is mounted, nor in development where it is mounted', () => {
    expect(loadAppConfig({ ...production, ORACLE_MOUNT: 'false' }, configs).oracle.mounted).toBeNull();
    const development = loadAppConfig({ ...SECRET }, configs).oracle.mounted;
    expect(development).not.toBeNull();
    expect(development?.apiKeys).toBeNull();
  });
});
