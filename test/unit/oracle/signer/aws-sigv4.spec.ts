import { signAwsRequest } from '../../../../src/oracle/signer/aws-sigv4.js';

/**
 * Signatures published by AWS's SigV4 test suite (aws-sig-v4-test-suite: AKIDEXAMPLE, 2015-08-30T12:36:00Z,
 * us-east-1, service "service", host example.amazonaws.com), and three for service kms on a local endpoint that
 * the Kroxylicious project checked against AWS (its aws kms known_good.yaml).
 */
const SUITE = {
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  region: 'us-east-1',
  service: 'service',
  date: new Date('2015-08-30T12:36:00Z'),
  url: new URL('https://example.amazonaws.com/'),
};
const SUITE_TOKEN =
  'AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpSPfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQDYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+scqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA==';

const KMS_LOCAL = {
  credentials: { accessKeyId: 'access', secretAccessKey: 'secret' },
  region: 'us-east-1',
  service: 'kms',
  date: new Date(1715950890 * 1000),
  body: 'somedata',
  method: 'POST',
};

describe(signAwsRequest.name, () => {
  it.each([
    [
      'get-vanilla',
      'GET',
      {},
      '',
      'host;x-amz-date',
      '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    ],
    [
      'post-vanilla',
      'POST',
      {},
      '',
      'host;x-amz-date',
      '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b',
    ],
    [
      'post-x-www-form-urlencoded',
      'POST',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      'Param1=value1',
      'content-type;host;x-amz-date',
      'ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a',
    ],
  ])('gives the signature AWS publishes for %s', (_name, method, headers, body, signedHeaders, signature) => {
    const sut = signAwsRequest({ ...SUITE, method, headers, body });

    expect(sut['x-amz-date']).toBe('20150830T123600Z');
    expect(sut.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        `SignedHeaders=${signedHeaders}, Signature=${signature}`,
    );
  });

  it('signs and sends the session token of temporary credentials (post-sts-header-before)', () => {
    const sut = signAwsRequest({
      ...SUITE,
      credentials: { ...SUITE.credentials, sessionToken: SUITE_TOKEN },
      method: 'POST',
      headers: {},
      body: '',
    });

    expect(sut['x-amz-security-token']).toBe(SUITE_TOKEN);
    expect(sut.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        'SignedHeaders=host;x-amz-date;x-amz-security-token, ' +
        'Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead',
    );
  });

  it.each([
    [
      'http://localhost:4566',
      {},
      'host;x-amz-date',
      'd01abf110351d12d715fa037454491f580f6b92e70345f7c4d3af583bc6637e5',
    ],
    [
      'http://localhost:4566/my/path',
      {},
      'host;x-amz-date',
      'f682826f50818283d003f4ae917eb91579aa4bbfb318c8d449e503b0c71fad90',
    ],
    [
      'http://localhost:4566',
      { 'X-Amz-Target': 'TrentService.DescribeKey' },
      'host;x-amz-date;x-amz-target',
      'eeeb906dbb1f67993eaf41af80cf180676ab90cdc6b298cfe00cdb04bce93007',
    ],
  ])('signs a kms call to %s with headers %j, port in the host', (url, headers, signedHeaders, signature) => {
    const sut = signAwsRequest({ ...KMS_LOCAL, url: new URL(url), headers });

    expect(sut.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=access/20240517/us-east-1/kms/aws4_request, ' +
        `SignedHeaders=${signedHeaders}, Signature=${signature}`,
    );
  });

  it('signs the body: another body is another signature', () => {
    const sign = (body: string) =>
      signAwsRequest({ ...KMS_LOCAL, url: new URL('http://localhost:4566'), headers: {}, body });

    expect(sign('somedata').authorization).not.toBe(sign('somedatb').authorization);
  });

  it('keeps the headers it was given and never puts the secret key in any header', () => {
    const sut = signAwsRequest({
      ...SUITE,
      method: 'POST',
      headers: { 'x-amz-target': 'TrentService.Sign' },
      body: '{}',
    });

    expect(sut['x-amz-target']).toBe('TrentService.Sign');
    expect(JSON.stringify(sut)).not.toContain(SUITE.credentials.secretAccessKey);
  });
});
