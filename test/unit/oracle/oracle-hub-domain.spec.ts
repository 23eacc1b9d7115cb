import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../../src/config/config.error.js';
import { loadOracleConfig } from '../../../src/oracle/config/oracle-config.js';

/** A throwaway signing key: loadOracleConfig requires one, and the domain does not depend on it. */
const ENV = { ENVIRONMENT: 'test', ECDSA_PRIVATE_KEY: `0x${'11'.repeat(32)}` };
/** Where the devnet deploys FerryOracleVerifier on 31337 (Hardhat account #4, nonce 0). */
const DEVNET_VERIFIER = '0xbdEd0D2bf404bdcBa897a74E6657f1f12e5C6fb6';

describe('loadOracleConfig: the hub domain (configs/chains.hub.<ENVIRONMENT>.json)', () => {
  let configDir: string;
  let hubFile: string;
  const writeHub = (hub: Record<string, unknown>) =>
    writeFileSync(
      hubFile,
      JSON.stringify({
        chainId: '31337',
        oracle: DEVNET_VERIFIER,
        domain: { name: 'FerryOracle', version: '1' },
        ...hub,
      }),
    );
  const errorOf = (load: () => unknown): ConfigError => {
    try {
      load();
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    throw new Error('loadOracleConfig accepted the file');
  };

  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), 'ferry-oracle-configs-'));
    cpSync(resolve('configs'), configDir, { recursive: true });
    hubFile = join(configDir, 'chains.hub.test.json');
  });
  afterEach(() => rmSync(configDir, { recursive: true, force: true }));

  it('binds ENVIRONMENT=test to devnet hub 31337 and the verifier the devnet deploys', () => {
    const sut = loadOracleConfig(ENV);
    expect(sut.environment).toBe('test');
    expect(sut.domain).toEqual({
      name: 'FerryOracle',
      version: '1',
      chainId: 31337,
      verifyingContract: DEVNET_VERIFIER,
    });
  });

  it('takes the hub chain and oracle contract from HUB_CHAIN_ID and HUB_ORACLE_CONTRACT, checksummed', () => {
    const oracle = '0x00000000000000000000000000000000000000aa';
    const sut = loadOracleConfig({ ...ENV, HUB_CHAIN_ID: '8453', HUB_ORACLE_CONTRACT: oracle }, configDir);
    expect(sut.domain).toMatchObject({
      chainId: 8453,
      verifyingContract: '0x00000000000000000000000000000000000000AA',
    });
  });

  it('refuses an oracle that is not an address, naming the file and the field', () => {
    writeHub({ oracle: '0x1234' });
    const error = errorOf(() => loadOracleConfig(ENV, configDir));
    expect(error.variable).toBe(`${hubFile} oracle`);
    expect(error.message).toContain(hubFile);
    expect(error.message).toContain('0x1234');
  });

  it.each(['0', '-1', 'hub', '1.5'])('refuses hub chain id %s, naming the file and the field', (chainId) => {
    writeHub({ chainId });
    const error = errorOf(() => loadOracleConfig(ENV, configDir));
    expect(error.variable).toBe(`${hubFile} chainId`);
    expect(error.message).toContain('must be a positive integer');
  });

  it('refuses a domain without a name or version', () => {
    writeHub({ domain: { name: 'FerryOracle' } });
    expect(errorOf(() => loadOracleConfig(ENV, configDir)).variable).toBe(`${hubFile} domain`);
  });

  it('loads the unedited copy, so the refusals above come from the edited field', () => {
    expect(JSON.parse(readFileSync(hubFile, 'utf8')).oracle).toContain(DEVNET_VERIFIER);
    expect(loadOracleConfig(ENV, configDir).domain.verifyingContract).toBe(DEVNET_VERIFIER);
  });
});
