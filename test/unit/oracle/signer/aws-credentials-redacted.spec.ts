import { JsonLogger } from '../../../../src/common/logging/json-logger.js';

describe('AWS credentials in log lines', () => {
  it('are redacted wherever a logged object holds them (cloud-kms signer credentials)', () => {
    const lines: string[] = [];
    const sut = new JsonLogger('info', (line) => lines.push(line));

    sut.log({
      msg: 'kms',
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret-1', sessionToken: 'token-1' },
      env: { AWS_SECRET_ACCESS_KEY: 'secret-2', AWS_SESSION_TOKEN: 'token-2' },
      headers: { 'x-amz-security-token': 'token-3', authorization: 'AWS4-HMAC-SHA256 Signature=abc' },
    });

    const [line] = lines;
    for (const secret of ['secret-1', 'secret-2', 'token-1', 'token-2', 'token-3', 'Signature=abc']) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line).credentials.accessKeyId).toBe('AKIAEXAMPLE');
  });
});
