import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadOracleConfig } from '../../../src/oracle/config/oracle-config.js';
import { parsePeers } from '../../../src/oracle/config/peers.js';
import { loadVaultSecrets } from '../../../src/oracle/config/vault-secrets.js';
import { PRODUCTION_CHAINS_ENV, PRODUCTION_HUB_ENV } from '../../support/production-env.js';
import { configError } from '../../support/config-error.js';

const configs = resolve('configs');
const KEY = `0x${'4b'.repeat(32)}`;
const base = { ENVIRONMENT: 'test', ECDSA_PRIVATE_KEY: KEY };

describe(loadOracleConfig.name, () => {
  it('defaults: port 3000, no keys (open), no peers, 5000 ms peer time-out, not shadow, the test hub domain', () => {
    const sut = loadOracleConfig(base, configs);
    expect(sut).toMatchObject({
      environment: 'test',
      port: 3000,
      apiKeys: null,
      peers: [],
      peerTimeoutMs: 5000,
      shadow: false,
      signing: { module: 'raw-private-key', privateKey: KEY },
      domain: {
        name: 'FerryOracle',
        version: '1',
        chainId: 31337,
        verifyingContract: '0xbdEd0D2bf404bdcBa897a74E6657f1f12e5C6fb6',
      },
    });
  });

  it('takes HTTP_PORT, then PORT, then 3000', () => {
    expect(loadOracleConfig({ ...base, HTTP_PORT: '4100', PORT: '4200' }, configs).port).toBe(4100);
    expect(loadOracleConfig({ ...base, PORT: '4200' }, configs).port).toBe(4200);
    expect(configError(() => loadOracleConfig({ ...base, HTTP_PORT: 'x' }, configs)).variable).toBe(
      'HTTP_PORT',
    );
  });

  it('reads API_KEYS, PEERS, PEER_REQUEST_TIMEOUT_MS and SHADOW_MODE', () => {
    const sut = loadOracleConfig(
      {
        ...base,
        API_KEYS: 'k-a:ops',
        PEERS: 'https://peer.example/|k-peer;http://10.0.0.2:3000|pass-through',
        PEER_REQUEST_TIMEOUT_MS: '300',
        SHADOW_MODE: 'true',
      },
      configs,
    );
    expect(sut.apiKeys?.map((key) => key.label)).toEqual(['ops']);
    expect(sut.peers).toEqual([
      { url: 'https://peer.example', key: { kind: 'key', value: 'k-peer' } },
      { url: 'http://10.0.0.2:3000', key: { kind: 'pass-through' } },
    ]);
    expect(sut.peerTimeoutMs).toBe(300);
    expect(sut.shadow).toBe(true);
  });

  it.each([
    [{ API_KEYS: 'k-secret-only' }, 'API_KEYS'],
    [{ PEERS: 'ftp://peer|k-secret-peer' }, 'PEERS'],
    [{ PEER_REQUEST_TIMEOUT_MS: '0' }, 'PEER_REQUEST_TIMEOUT_MS'],
    [{ SHADOW_MODE: 'yes' }, 'SHADOW_MODE'],
    [{ ECDSA_PRIVATE_KEY: '' }, 'ECDSA_PRIVATE_KEY'],
    [{ ECDSA_PRIVATE_KEY: '0xk-secret-not-hex' }, 'ECDSA_PRIVATE_KEY'],
    [{ SIGNING_MODULE: 'hsm' }, 'SIGNING_MODULE'],
    [{ SIGNING_MODULE: 'cloud-kms', CLOUD_KMS_SIGNER_KEY_ID: 'key-1' }, 'CLOUD_KMS_SIGNER_KEY_REGION'],
  ])('stops start-up on %j, naming %s and not echoing a secret', (env, variable) => {
    const error = configError(() => loadOracleConfig({ ...base, ...env }, configs));
    expect(error.variable).toBe(variable);
    expect(error.message).not.toContain('k-secret');
  });
});

describe(`${loadOracleConfig.name} in production`, () => {
  const production = {
    ...PRODUCTION_CHAINS_ENV,
    ...PRODUCTION_HUB_ENV,
    ENVIRONMENT: 'production',
    ECDSA_PRIVATE_KEY: KEY,
  };

  it('refuses to start without API_KEYS (every attestation route would answer anyone), naming the variable', () => {
    const error = configError(() => loadOracleConfig(production, configs));

    expect(error.variable).toBe('API_KEYS');
    expect(error.message).toMatch(/^Invalid configuration: API_KEYS is required in production/);
    expect(error.message).toContain('ORACLE_ALLOW_OPEN=true');
  });

  it('starts open only when told so on purpose (ORACLE_ALLOW_OPEN=true), and with keys when API_KEYS is set', () => {
    expect(loadOracleConfig({ ...production, ORACLE_ALLOW_OPEN: 'true' }, configs).apiKeys).toBeNull();
    const keyed = loadOracleConfig({ ...production, API_KEYS: 'k-a:ops' }, configs);
    expect(keyed.apiKeys?.map((key) => key.label)).toEqual(['ops']);
  });

  it.each([
    [{ ORACLE_ALLOW_OPEN: 'false' }, 'API_KEYS'],
    [{ ORACLE_ALLOW_OPEN: 'yes' }, 'ORACLE_ALLOW_OPEN'],
  ])('stops on %j, naming %s', (env, variable) => {
    expect(configError(() => loadOracleConfig({ ...production, ...env }, configs)).variable).toBe(variable);
  });

  it('development and test still start open without API_KEYS', () => {
    expect(loadOracleConfig(base, configs).apiKeys).toBeNull();
    expect(loadOracleConfig({ ECDSA_PRIVATE_KEY: KEY }, configs).apiKeys).toBeNull();
  });
});

describe(parsePeers.name, () => {
  it('refuses a URL with credentials (fetch would refuse every call, and log it), without echoing them', () => {
    const error = configError(() =>
      parsePeers('https://peer.example|k-a;https://ops:k-secret-pw@peer.example|k-b'),
    );
    expect(error.message).toBe(
      'Invalid configuration: PEERS entry 2 has credentials in its URL; put the peer key after |',
    );
  });

  it.each(['https://peer.example', 'https://peer.example|', '|k-peer', 'not a url|k-peer', 'https://a|k;;'])(
    'refuses %j',
    (text) => {
      expect(configError(() => parsePeers(text)).variable).toBe('PEERS');
    },
  );
});

describe(loadVaultSecrets.name, () => {
  it('reads files named like variables and NAME=value files; variables already set win', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-vault-'));
    writeFileSync(join(dir, 'ECDSA_PRIVATE_KEY'), `${KEY}\n`);
    writeFileSync(join(dir, 'oracle.env'), '# agent template\nexport API_KEYS="k-a:ops"\nPEERS=set-in-env\n');
    mkdirSync(join(dir, 'nested'));
    expect(loadVaultSecrets(dir, { PEERS: 'from-env' })).toEqual({
      ECDSA_PRIVATE_KEY: KEY,
      API_KEYS: 'k-a:ops',
    });
  });

  it('is no secrets when the directory is missing', () => {
    expect(loadVaultSecrets(join(tmpdir(), 'ferry-no-such-vault-dir'), {})).toEqual({});
  });
});
