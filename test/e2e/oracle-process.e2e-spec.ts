import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { ORACLE_SIGNER_KEYS } from '../support/oracle.js';
import { PRODUCTION_CHAINS_ENV, PRODUCTION_HUB_ENV } from '../support/production-env.js';
import { freePort, type Spawned, spawnNode } from '../support/process.js';

const MAIN = 'dist/src/oracle/main.js';

/** Polls /lives/v1 until it answers (the process may still be starting), or the process exits. */
async function lives(port: number, sut: Spawned): Promise<{ status: number; body: unknown } | null> {
  let exited = false;
  void sut.exited.then(() => (exited = true));
  for (let attempt = 0; attempt < 300 && !exited; attempt += 1) {
    const response = await fetch(`http://127.0.0.1:${port}/lives/v1`).catch(() => undefined);
    if (response) return { status: response.status, body: await response.json() };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return null;
}

/** The JSON line announcing the signer, once the process is up. */
function announcement(sut: Spawned): Record<string, unknown> | undefined {
  return sut
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line.msg === 'oracle signer');
}

const output = (sut: Spawned) => `${sut.stdout()}\n${sut.stderr()}`;

describe('the oracle process (dist/src/oracle/main.js, as `npm run start:oracle` runs it)', () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (scripts/test.mjs)`);
  });

  async function runUntilLive(env: Record<string, string>, port: number, key: string) {
    const sut = spawnNode(MAIN, [], { ENVIRONMENT: 'test', HOST: '127.0.0.1', ...env });
    try {
      expect(await lives(port, sut)).toEqual({ status: 200, body: { status: 'ok' } });
      expect(announcement(sut)).toMatchObject({
        signer: privateKeyToAccount(key as `0x${string}`).address,
        shadow: false,
        domain: { name: 'FerryOracle', chainId: 31337 },
      });
    } finally {
      sut.child.kill('SIGTERM');
    }
    expect([0, 'SIGTERM']).toContain(await sut.exited);
    expect(output(sut)).not.toContain(key.slice(2));
  }

  it('starts on HTTP_PORT, names its signer and never prints the key', async () => {
    const port = await freePort();
    const key = ORACLE_SIGNER_KEYS.seven;
    await runUntilLive({ ECDSA_PRIVATE_KEY: key, HTTP_PORT: String(port), PORT: '1' }, port, key);
  });

  it('starts on PORT when HTTP_PORT is unset', async () => {
    const port = await freePort();
    const key = ORACLE_SIGNER_KEYS.eight;
    await runUntilLive({ ECDSA_PRIVATE_KEY: key, PORT: String(port) }, port, key);
  });

  it('reads ECDSA_PRIVATE_KEY from the secrets directory (VAULT_SECRETS_DIR) when the variable is unset', async () => {
    const port = await freePort();
    const key = ORACLE_SIGNER_KEYS.nine;
    const vault = mkdtempSync(join(tmpdir(), 'ferry-oracle-vault-'));
    writeFileSync(join(vault, 'ECDSA_PRIVATE_KEY'), `${key}\n`);
    await runUntilLive({ VAULT_SECRETS_DIR: vault, HTTP_PORT: String(port) }, port, key);
  });

  it('starts open in production only when ORACLE_ALLOW_OPEN=true, and warns that it answers anyone', async () => {
    const port = await freePort();
    const sut = spawnNode(MAIN, [], {
      ENVIRONMENT: 'production',
      HOST: '127.0.0.1',
      ECDSA_PRIVATE_KEY: ORACLE_SIGNER_KEYS.seven,
      HTTP_PORT: String(port),
      ORACLE_ALLOW_OPEN: 'true',
      ...PRODUCTION_CHAINS_ENV,
      ...PRODUCTION_HUB_ENV,
    });
    try {
      expect(await lives(port, sut)).toMatchObject({ status: 200 });
      expect(output(sut)).toContain('The oracle answers anyone who reaches its port');
    } finally {
      sut.child.kill('SIGTERM');
    }
    await sut.exited;
  });

  it.each([
    ['a malformed API_KEYS', { API_KEYS: 'k-e2e-secret-key' }, /^Invalid configuration: API_KEYS entry 1 /],
    [
      'a malformed ECDSA_PRIVATE_KEY',
      { ECDSA_PRIVATE_KEY: '0xk-e2e-secret-key' },
      /^Invalid configuration: ECDSA_PRIVATE_KEY /,
    ],
    [
      'production without API_KEYS (its routes would answer anyone)',
      { ENVIRONMENT: 'production', ...PRODUCTION_CHAINS_ENV, ...PRODUCTION_HUB_ENV },
      /^Invalid configuration: API_KEYS is required in production/,
    ],
  ])('exits non-zero on %s with one line naming the variable, not its value', async (_name, env, line) => {
    const port = await freePort();
    const sut = spawnNode(MAIN, [], {
      ENVIRONMENT: 'test',
      HOST: '127.0.0.1',
      ECDSA_PRIVATE_KEY: ORACLE_SIGNER_KEYS.seven,
      HTTP_PORT: String(port),
      ...env,
    });
    expect(await sut.exited).toBe(1);
    expect(sut.stderr()).toMatch(line);
    expect(sut.stderr().trim().split('\n')).toHaveLength(1);
    expect(output(sut)).not.toContain('k-e2e-secret-key');
    expect(await fetch(`http://127.0.0.1:${port}/lives/v1`).catch(() => null)).toBeNull();
  });
});
