import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KmsTestServer } from '../support/kms-server.js';
import { freePort, spawnNode } from '../support/process.js';

const MAIN = 'dist/src/oracle/main.js';

describe('the oracle process (dist/src/oracle/main.js) with SIGNING_MODULE=cloud-kms', () => {
  let kms: KmsTestServer;
  // No /vault/secrets of the machine running the tests: an empty directory.
  const vault = mkdtempSync(join(tmpdir(), 'ferry-vault-'));

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (scripts/test.mjs)`);
    kms = await new KmsTestServer().start();
  });

  afterAll(async () => {
    await kms.stop();
  });

  it("logs the KMS key's address as its signer at start and serves, with no secret in its output", async () => {
    const port = await freePort();
    const sut = spawnNode(MAIN, [], {
      ...kms.env(),
      ENVIRONMENT: 'test',
      HTTP_PORT: String(port),
      HOST: '127.0.0.1',
      VAULT_SECRETS_DIR: vault,
    });
    try {
      let response: Response | undefined;
      for (let attempt = 0; attempt < 300 && response?.status !== 200; attempt += 1) {
        response = await fetch(`http://127.0.0.1:${port}/chains/v1`).catch(() => undefined);
        if (response?.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(response?.status).toBe(200);
      const announced = sut
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
        .find((entry) => entry.msg === 'oracle signer');
      expect(announced).toMatchObject({ signer: kms.address });
    } finally {
      sut.child.kill('SIGTERM');
    }
    expect([0, 'SIGTERM']).toContain(await sut.exited);
    const output = sut.stdout() + sut.stderr();
    expect(output).not.toContain(kms.credentials.secretAccessKey);
    expect(output).not.toContain(kms.credentials.sessionToken);
  });

  it('stops when KMS refuses its credentials, saying which and without the secret', async () => {
    const secret = 'a-wrong-secret-access-key/000';
    const sut = spawnNode(MAIN, [], {
      ...kms.env(),
      AWS_SECRET_ACCESS_KEY: secret,
      ENVIRONMENT: 'test',
      HTTP_PORT: String(await freePort()),
      VAULT_SECRETS_DIR: vault,
    });

    expect(await sut.exited).toBe(1);
    expect(sut.stderr()).toContain('AWS KMS GetPublicKey failed: InvalidSignatureException (HTTP 400)');
    expect(sut.stdout() + sut.stderr()).not.toContain(secret);
  });

  it('stops with one line naming AWS_ACCESS_KEY_ID when it is missing', async () => {
    const env: Record<string, string> = { ...kms.env(), ENVIRONMENT: 'test', VAULT_SECRETS_DIR: vault };
    delete env.AWS_ACCESS_KEY_ID;

    const sut = spawnNode(MAIN, [], env);

    expect(await sut.exited).toBe(1);
    expect(sut.stderr()).toBe(
      'Invalid configuration: AWS_ACCESS_KEY_ID is required with SIGNING_MODULE=cloud-kms\n',
    );
  });
});
