import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { API_KEY_SECRET_FILE, loadOrCreateSecretFile } from '../../../src/api-keys/api-key-secret.js';
import { loadAppConfig } from '../../../src/config/app-config.js';
import { ConfigError } from '../../../src/config/config.error.js';
import { PRODUCTION_CHAINS_ENV } from '../../support/production-env.js';

const configs = resolve('configs');
const tempDir = () => mkdtempSync(join(tmpdir(), 'ferry-api-key-secret-'));

function configError(env: Record<string, string>): ConfigError {
  try {
    loadAppConfig(env, configs);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('loadAppConfig did not throw');
}

describe('the apiKeys configuration', () => {
  it('reads API_KEY_ENCRYPTION_KEY_PREVIOUS while rotating, and refuses it malformed or equal to the current one', () => {
    const current = randomBytes(32);
    const previous = randomBytes(32);
    const env = { API_KEY_ENCRYPTION_KEY: current.toString('hex'), DATA_DIR: tempDir() };
    expect(loadAppConfig(env, configs).apiKeys.previousEncryptionKey).toBeNull();
    const rotating = loadAppConfig(
      { ...env, API_KEY_ENCRYPTION_KEY_PREVIOUS: previous.toString('base64') },
      configs,
    );
    expect(rotating.apiKeys.previousEncryptionKey!.equals(previous)).toBe(true);
    const malformed = configError({ ...env, API_KEY_ENCRYPTION_KEY_PREVIOUS: 'not-a-secret' });
    expect(malformed.message).toContain('API_KEY_ENCRYPTION_KEY_PREVIOUS must be 32 bytes');
    expect(malformed.message).not.toContain('not-a-secret');
    const same = configError({ ...env, API_KEY_ENCRYPTION_KEY_PREVIOUS: current.toString('base64') });
    expect(same.message).toContain('is the same secret as API_KEY_ENCRYPTION_KEY');
  });

  it('reads API_KEY_ENCRYPTION_KEY as hex or base64, and the default rate limit (600, or its variable)', () => {
    const secret = randomBytes(32);
    const dataDir = tempDir();
    for (const text of [secret.toString('hex'), secret.toString('base64'), secret.toString('base64url')]) {
      const sut = loadAppConfig({ API_KEY_ENCRYPTION_KEY: text, DATA_DIR: dataDir }, configs);
      expect(sut.apiKeys.encryptionKey.equals(secret)).toBe(true);
      expect(sut.apiKeys.defaultRateLimitPerMinute).toBe(600);
    }
    expect(existsSync(join(dataDir, API_KEY_SECRET_FILE))).toBe(false);
    const sut = loadAppConfig(
      {
        API_KEY_ENCRYPTION_KEY: secret.toString('hex'),
        API_KEY_RATE_LIMIT_PER_MINUTE: '30',
        ENVIRONMENT: 'production',
        ...PRODUCTION_CHAINS_ENV,
      },
      configs,
    );
    expect(sut.apiKeys.defaultRateLimitPerMinute).toBe(30);
  });

  it('stops production start-up without API_KEY_ENCRYPTION_KEY, naming it', () => {
    const error = configError({ ENVIRONMENT: 'production', DATA_DIR: tempDir(), ...PRODUCTION_CHAINS_ENV });
    expect(error.variable).toBe('API_KEY_ENCRYPTION_KEY');
    expect(error.message).toMatch(/^Invalid configuration: API_KEY_ENCRYPTION_KEY is required in production/);
    expect(error.message).not.toContain('\n');
  });

  it.each([['not-a-key'], ['abcd'], [randomBytes(16).toString('hex')], [randomBytes(33).toString('base64')]])(
    'stops on a malformed API_KEY_ENCRYPTION_KEY (%s), naming it but not echoing it',
    (value) => {
      const error = configError({ API_KEY_ENCRYPTION_KEY: value, DATA_DIR: tempDir() });
      expect(error.variable).toBe('API_KEY_ENCRYPTION_KEY');
      expect(error.message).toContain('must be 32 bytes as 64 hex characters or base64');
      expect(error.message).not.toContain(value);
    },
  );

  it('stops on a malformed API_KEY_RATE_LIMIT_PER_MINUTE', () => {
    const error = configError({ API_KEY_RATE_LIMIT_PER_MINUTE: '0', DATA_DIR: tempDir() });
    expect(error.message).toContain('API_KEY_RATE_LIMIT_PER_MINUTE must be between 1 and 1000000');
  });

  it('outside production, generates a secret once in <DATA_DIR>/api-key-encryption.key (0600) and reuses it', () => {
    const dataDir = join(tempDir(), 'not-yet-created');
    const first = loadAppConfig({ ENVIRONMENT: 'test', DATA_DIR: dataDir }, configs);
    const file = join(dataDir, API_KEY_SECRET_FILE);
    expect(first.apiKeys.encryptionKey).toHaveLength(32);
    expect(readFileSync(file, 'utf8')).toBe(`${first.apiKeys.encryptionKey.toString('hex')}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = loadAppConfig({ DATA_DIR: dataDir }, configs);
    expect(second.apiKeys.encryptionKey.equals(first.apiKeys.encryptionKey)).toBe(true);
    // The variable, when set, wins over the file.
    const configured = randomBytes(32);
    const third = loadAppConfig(
      { DATA_DIR: dataDir, API_KEY_ENCRYPTION_KEY: configured.toString('hex') },
      configs,
    );
    expect(third.apiKeys.encryptionKey.equals(configured)).toBe(true);
  });

  it('keeps no file for DATA_DIR=memory://, one random secret per process', () => {
    const first = loadAppConfig({ DATA_DIR: 'memory://a' }, configs);
    const second = loadAppConfig({ DATA_DIR: 'memory://b' }, configs);
    expect(first.apiKeys.encryptionKey).toHaveLength(32);
    expect(second.apiKeys.encryptionKey.equals(first.apiKeys.encryptionKey)).toBe(true);
  });

  it('stops when the generated secret file is damaged, naming the variable and the file', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, API_KEY_SECRET_FILE), 'garbage\n');
    const error = configError({ DATA_DIR: dataDir });
    expect(error.variable).toBe('API_KEY_ENCRYPTION_KEY');
    expect(error.message).toContain(join(dataDir, API_KEY_SECRET_FILE));
  });

  it('reuses the file an earlier start wrote', () => {
    const dataDir = tempDir();
    const secrets = Array.from({ length: 5 }, () => loadOrCreateSecretFile(dataDir));
    for (const secret of secrets) expect(secret.equals(secrets[0])).toBe(true);
    expect(readFileSync(join(dataDir, API_KEY_SECRET_FILE), 'utf8').trim()).toBe(secrets[0].toString('hex'));
  });

  it('says when the file cannot be created', () => {
    const parent = tempDir();
    writeFileSync(join(parent, 'file'), '');
    expect(() => loadOrCreateSecretFile(join(parent, 'file', 'data'))).toThrow(
      /API_KEY_ENCRYPTION_KEY is unset and .* cannot be created/,
    );
  });
});
