import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { JsonLogger } from '../../../src/common/logging/json-logger.js';
import { AttestationService } from '../../../src/oracle/attestation.service.js';
import { loadOracleConfig } from '../../../src/oracle/config/oracle-config.js';
import { createOracleApp } from '../../../src/oracle/create-oracle-app.js';
import { createSigner } from '../../../src/oracle/signer/create-signer.js';
import { KmsTestServer } from '../../support/kms-server.js';

describe('the oracle app with SIGNING_MODULE=cloud-kms', () => {
  let kms: KmsTestServer;
  let app: NestFastifyApplication | undefined;
  const lines: string[] = [];

  beforeAll(async () => {
    kms = await new KmsTestServer().start();
  });

  afterAll(async () => {
    await app?.close();
    await kms.stop();
  });

  it('starts with the KMS key as its signer and announces its address', async () => {
    const env = { ENVIRONMENT: 'test', ...kms.env() };
    const config = loadOracleConfig(env);
    const signer = await createSigner(config.signing, env);
    app = await createOracleApp(config, signer, {
      logger: new JsonLogger('info', (line) => lines.push(line)),
    });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();

    app.get(AttestationService).announce();

    expect(config.signing).toEqual({
      module: 'cloud-kms',
      keyId: kms.keyId,
      region: 'us-east-1',
      endpoint: kms.url,
    });
    expect(app.get(AttestationService).signerAddress).toBe(kms.address);
    const announced = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'oracle signer');
    expect(announced).toMatchObject({ signer: kms.address, shadow: false });
    const chains = await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/chains/v1' });
    expect(chains.statusCode).toBe(200);
    expect(chains.json().chains.map((chain: { id: number }) => chain.id)).toContain(31337);
    const logged = lines.join('\n');
    expect(logged).not.toContain(kms.credentials.secretAccessKey);
    expect(logged).not.toContain(kms.credentials.sessionToken);
  });
});
