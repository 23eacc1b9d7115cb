import { redactedUrlAttributes } from '../../../src/telemetry/redacted-url.js';

describe(redactedUrlAttributes.name, () => {
  it.each([
    [
      "keeps no provider key from a URL's path",
      'https://eth-mainnet.g.alchemy.com',
      '/v2/abcKEY123',
      ['https://eth-mainnet.g.alchemy.com/REDACTED', '/REDACTED', ''],
    ],
    [
      "keeps no provider key from a URL's query",
      'https://rpc.example:8443',
      '/?apikey=abcKEY123',
      ['https://rpc.example:8443/?REDACTED', '/', 'REDACTED'],
    ],
    [
      'keeps no provider key from a path and a query',
      'https://mainnet.infura.io',
      '/v3/abcKEY123?x=abcKEY123',
      ['https://mainnet.infura.io/REDACTED?REDACTED', '/REDACTED', 'REDACTED'],
    ],
    [
      'keeps the origin and a bare path as they are: a local node reads as itself',
      'http://127.0.0.1:8545',
      '/',
      ['http://127.0.0.1:8545/', '/', ''],
    ],
    [
      'gives nothing of a URL that does not parse',
      'not a url',
      '/v2/abcKEY123',
      ['REDACTED', 'REDACTED', 'REDACTED'],
    ],
  ])('%s', (_rule, origin, path, [full, pathname, query]) => {
    const sut = redactedUrlAttributes(origin, path);
    expect(sut).toEqual({ 'url.full': full, 'url.path': pathname, 'url.query': query });
    expect(JSON.stringify(sut)).not.toContain('abcKEY123');
  });
});
