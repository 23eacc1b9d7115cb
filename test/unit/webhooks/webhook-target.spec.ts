import {
  checkCustomHeaders,
  checkWebhookTarget,
  classifyAddress,
  type HostResolver,
} from '../../../src/webhooks/index.js';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';
const strict = { allowInsecureLocal: false };
const dev = { allowInsecureLocal: true };
/** A resolver that answers from a table, like DNS would, and records what it was asked. */
function resolverOf(table: Record<string, string[]>): HostResolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  };
  return Object.assign(resolve, { asked });
}

/** Every blocked range, by a representative address, with its kind. */
const BLOCKED: [address: string, kind: string][] = [
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.254', 'private'],
  ['192.168.1.1', 'private'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.254', 'cgnat'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['240.0.0.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'link-local'],
  ['febf::1', 'link-local'],
  ['fc00::1', 'unique-local'],
  ['fdff:ffff::1', 'unique-local'],
  ['fd00:ec2::254', 'metadata'],
  ['ff02::1', 'multicast'],
  ['fec0::1', 'private'],
  ['2001:db8::1', 'reserved'],
  // IPv4-mapped IPv6 (dotted and hex forms) of each IPv4 range, and other IPv4 embeddings.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:172.16.0.1', 'private'],
  ['::ffff:192.168.0.1', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['::ffff:169.254.1.1', 'link-local'],
  ['::ffff:100.64.0.1', 'cgnat'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:224.0.0.1', 'multicast'],
  ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
  ['::ffff:0:10.0.0.1', 'private'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['::127.0.0.1', 'loopback'],
  ['::10.0.0.1', 'private'],
];

describe('classifyAddress', () => {
  it.each(BLOCKED)('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)?.kind).toBe(kind);
  });

  it.each([
    PUBLIC_V4,
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    PUBLIC_V6,
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ])('classifies %s as public', (address) => {
    expect(classifyAddress(address)?.kind).toBe('public');
  });

  it('accepts brackets and zone ids, and says null for non-addresses', () => {
    expect(classifyAddress('[::1]')?.kind).toBe('loopback');
    expect(classifyAddress('fe80::1%eth0')?.kind).toBe('link-local');
    expect(classifyAddress('example.com')).toBeNull();
    expect(classifyAddress('999.1.1.1')).toBeNull();
  });
});

describe('checkWebhookTarget', () => {
  it('accepts an HTTPS host that resolves only to public addresses, and returns them to pin', async () => {
    const resolve = resolverOf({ 'hooks.acme.example': [PUBLIC_V4, PUBLIC_V6] });
    const result = await checkWebhookTarget('https://hooks.acme.example/ferry?x=1', strict, resolve);
    expect(result).toEqual({
      ok: true,
      url: new URL('https://hooks.acme.example/ferry?x=1'),
      addresses: [PUBLIC_V4, PUBLIC_V6],
    });
    expect(resolve.asked).toEqual(['hooks.acme.example']);
  });

  it('accepts a public IP literal without asking DNS', async () => {
    const resolve = resolverOf({});
    expect(await checkWebhookTarget(`https://${PUBLIC_V4}:8443/`, strict, resolve)).toMatchObject({
      ok: true,
      addresses: [PUBLIC_V4],
    });
    expect(await checkWebhookTarget(`https://[${PUBLIC_V6}]/`, strict, resolve)).toMatchObject({ ok: true });
    expect(resolve.asked).toEqual([]);
  });

  it.each(BLOCKED)(
    'refuses a host resolving to %s (%s), in both policies unless loopback in dev',
    async (address, kind) => {
      const resolve = resolverOf({ 'hooks.acme.example': [address] });
      const strictResult = await checkWebhookTarget('https://hooks.acme.example/', strict, resolve);
      expect(strictResult).toEqual({
        ok: false,
        reason: expect.stringMatching(new RegExp(`is an? ${kind} address`)),
      });
      const devResult = await checkWebhookTarget('https://hooks.acme.example/', dev, resolve);
      expect(devResult.ok).toBe(kind === 'loopback');
    },
  );

  it.each(BLOCKED.filter(([address]) => !address.includes('%')))(
    'refuses the IP literal %s',
    async (address) => {
      const host = address.includes(':') ? `[${address}]` : address;
      const result = await checkWebhookTarget(`https://${host}/hook`, strict, resolverOf({}));
      expect(result.ok).toBe(false);
    },
  );

  it('refuses a host with one forbidden address among public ones (any could be used)', async () => {
    const resolve = resolverOf({ 'mixed.example': [PUBLIC_V4, '10.0.0.7'] });
    expect(await checkWebhookTarget('https://mixed.example/', strict, resolve)).toEqual({
      ok: false,
      reason: 'mixed.example resolves to 10.0.0.7, which is a private address (10.0.0.0/8)',
    });
  });

  it('refuses cloud metadata names whatever they resolve to, even in development', async () => {
    const resolve = resolverOf({ 'metadata.google.internal': [PUBLIC_V4] });
    for (const url of [
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://METADATA.google.internal./',
    ]) {
      expect(await checkWebhookTarget(url, dev, resolve)).toEqual({
        ok: false,
        reason: 'metadata.google.internal is a cloud metadata service',
      });
    }
    expect(resolve.asked).toEqual([]);
  });

  it('refuses localhost without the allowance, and accepts it (over http too) with it', async () => {
    const resolve = resolverOf({ localhost: ['127.0.0.1', '::1'] });
    expect(await checkWebhookTarget('https://localhost/hook', strict, resolve)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('loopback'),
    });
    expect(await checkWebhookTarget('https://app.localhost/hook', strict, resolve)).toMatchObject({
      ok: false,
    });
    expect(await checkWebhookTarget('https://localhost/hook', dev, resolve)).toMatchObject({
      ok: true,
      addresses: ['127.0.0.1', '::1'],
    });
    expect(await checkWebhookTarget('http://localhost:4000/hook', dev, resolve)).toMatchObject({ ok: true });
    expect(await checkWebhookTarget('http://127.0.0.1:4000/hook', dev, resolve)).toMatchObject({ ok: true });
    expect(await checkWebhookTarget('http://[::1]:4000/hook', dev, resolve)).toMatchObject({ ok: true });
  });

  it('refuses localhost names that resolve elsewhere', async () => {
    const resolve = resolverOf({ 'evil.localhost': [PUBLIC_V4] });
    expect(await checkWebhookTarget('https://evil.localhost/', dev, resolve)).toMatchObject({ ok: false });
  });

  it('allows only loopback with the allowance: private ranges stay refused', async () => {
    const resolve = resolverOf({ 'lan.example': ['192.168.1.20'] });
    expect(await checkWebhookTarget('https://lan.example/', dev, resolve)).toMatchObject({ ok: false });
    expect(await checkWebhookTarget('https://10.0.0.1/', dev, resolve)).toMatchObject({ ok: false });
  });

  it('refuses plain http, except to loopback with the allowance', async () => {
    const resolve = resolverOf({ 'hooks.acme.example': [PUBLIC_V4] });
    expect(await checkWebhookTarget('http://hooks.acme.example/', strict, resolve)).toEqual({
      ok: false,
      reason: 'must use https (got http)',
    });
    expect(await checkWebhookTarget('http://hooks.acme.example/', dev, resolve)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('http is allowed only to loopback'),
    });
    expect(await checkWebhookTarget('http://127.0.0.1/', strict, resolve)).toMatchObject({ ok: false });
  });

  it.each([
    ['not a url', 'not a valid URL'],
    ['ftp://hooks.acme.example/', 'must use https (got ftp)'],
    ['file:///etc/passwd', 'must use https (got file)'],
    ['https://user:pass@hooks.acme.example/', 'must not carry credentials; send them as a custom header'],
    ['https://nowhere.example/', 'cannot resolve nowhere.example: ENOTFOUND'],
  ])('refuses %s', async (url, reason) => {
    expect(await checkWebhookTarget(url, dev, resolverOf({}))).toEqual({ ok: false, reason });
  });

  it('refuses a host that resolves to nothing or to something that is not an address', async () => {
    const resolve = resolverOf({ 'empty.example': [], 'odd.example': ['not-an-ip'] });
    expect(await checkWebhookTarget('https://empty.example/', strict, resolve)).toMatchObject({ ok: false });
    expect(await checkWebhookTarget('https://odd.example/', strict, resolve)).toMatchObject({ ok: false });
  });

  it('sees through the URL parser’s IPv4 shorthands (decimal, hex, octal)', async () => {
    for (const host of ['2130706433', '0x7f.1', '0177.0.0.1', '127.1']) {
      expect(await checkWebhookTarget(`https://${host}/`, strict, resolverOf({}))).toMatchObject({
        ok: false,
        reason: expect.stringContaining('loopback'),
      });
    }
  });

  it('uses the system resolver by default (localhost is loopback)', async () => {
    expect(await checkWebhookTarget('https://localhost/', dev)).toMatchObject({ ok: true });
    expect((await checkWebhookTarget('https://localhost/', strict)).ok).toBe(false);
  });
});

describe('checkCustomHeaders', () => {
  it('accepts ordinary headers, trimming values', () => {
    expect(
      checkCustomHeaders({ Authorization: ' Bearer abc ', 'X-Tenant': 'acme', 'User-Agent': 'x' }),
    ).toEqual({
      ok: true,
      headers: { Authorization: 'Bearer abc', 'X-Tenant': 'acme', 'User-Agent': 'x' },
    });
    expect(checkCustomHeaders({})).toEqual({ ok: true, headers: {} });
  });

  it.each([
    'X-Signature-Timestamp',
    'x-signature-sha256',
    'X-SIGNATURE-SHA256',
    'X-Webhook-Id',
    'content-type',
    'Content-Type',
    'Host',
    'CONTENT-LENGTH',
    'Transfer-Encoding',
    'Connection',
  ])('refuses an override of %s', (name) => {
    expect(checkCustomHeaders({ [name]: 'x' })).toEqual({
      ok: false,
      reason: `${name} cannot be set: the webhook sender sets it`,
    });
  });

  it.each([
    [{ 'Bad Name': 'x' }, 'invalid header name "Bad Name" (RFC 7230 token)'],
    [{ 'X-A:': 'x' }, 'invalid header name "X-A:" (RFC 7230 token)'],
    [{ '': 'x' }, 'invalid header name "" (RFC 7230 token)'],
    [{ 'X-Ünicode': 'x' }, 'invalid header name "X-Ünicode" (RFC 7230 token)'],
    [
      { 'X-A': 'a\r\nX-Injected: 1' },
      'X-A must be at most 4096 characters without CR, LF or control characters',
    ],
    [{ 'X-A': 'a\nb' }, 'X-A must be at most 4096 characters without CR, LF or control characters'],
    [{ 'X-A': 'a\u0000b' }, 'X-A must be at most 4096 characters without CR, LF or control characters'],
    [{ 'X-A': 'snow ☃' }, 'X-A must be at most 4096 characters without CR, LF or control characters'],
    [{ 'X-A': 'x'.repeat(4097) }, 'X-A must be at most 4096 characters without CR, LF or control characters'],
    [{ 'X-A': 5 }, 'X-A must be a string'],
    [{ 'X-A': 'a', 'x-a': 'b' }, 'x-a is given twice (names are case-insensitive)'],
  ])('refuses %p', (headers, reason) => {
    expect(checkCustomHeaders(headers)).toEqual({ ok: false, reason });
  });

  it('refuses non-objects and too many headers', () => {
    for (const junk of [null, 'x', ['a'], 5]) expect(checkCustomHeaders(junk).ok).toBe(false);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v']));
    expect(checkCustomHeaders(many)).toEqual({ ok: false, reason: 'at most 20 custom headers (got 21)' });
  });
});
