import { parseIsoInstant } from '../../../src/webhooks/admin/iso-instant.js';
import {
  normalizeWebhookEndpoint,
  webhookEndpointCheck,
  webhookEndpointProblem,
} from '../../../src/webhooks/webhook-endpoint-check.js';
import type { HostResolver } from '../../../src/webhooks/webhook-target.js';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';
const production = { allowInsecureLocalTargets: false };
const development = { allowInsecureLocalTargets: true };

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

const dns = resolverOf({
  'hooks.acme.example': [PUBLIC_V4, PUBLIC_V6],
  'internal.acme.example': ['10.1.2.3'],
  'mixed.acme.example': [PUBLIC_V4, '192.168.0.10'],
  'rebind.acme.example': ['::ffff:169.254.169.254'],
  'dev.localhost': ['127.0.0.1'],
});

describe('webhookEndpointProblem: the target policy of a configured endpoint', () => {
  it.each([
    [`https://${PUBLIC_V4}/hook`],
    [`https://[${PUBLIC_V6}]:8443/hook`],
    ['https://hooks.acme.example/ferry?tenant=1'],
    ['  https://hooks.acme.example/ferry  '],
  ])('accepts the public HTTPS target %s in production', async (url) => {
    expect(await webhookEndpointProblem(url, {}, production, dns)).toBeNull();
  });

  it.each([
    ['http://hooks.acme.example/ferry', 'must use https (got http)'],
    [`http://${PUBLIC_V4}/hook`, 'must use https (got http)'],
    ['ftp://hooks.acme.example/ferry', 'must use https (got ftp)'],
    ['https://10.0.0.1/hook', '10.0.0.1 is a private address (10.0.0.0/8)'],
    ['https://192.168.1.20/hook', 'private address (192.168.0.0/16)'],
    ['https://172.20.0.5/hook', 'private address (172.16.0.0/12)'],
    ['https://127.0.0.1/hook', 'loopback address (127.0.0.0/8) (allowed only in development and test)'],
    ['https://[::1]/hook', 'loopback address'],
    ['https://localhost/hook', 'localhost is a loopback name'],
    ['https://169.254.169.254/latest/meta-data', 'metadata address (169.254.169.254/32)'],
    ['https://169.254.10.10/', 'link-local address (169.254.0.0/16)'],
    ['https://[fe80::1]/', 'link-local address'],
    ['https://[fd12::1]/', 'unique-local address'],
    ['https://100.64.0.1/', 'cgnat address'],
    ['https://[::ffff:10.0.0.1]/', 'private address (IPv4-mapped 10.0.0.0/8)'],
    ['https://metadata.google.internal/', 'metadata.google.internal is a cloud metadata service'],
    [
      'https://internal.acme.example/hook',
      'internal.acme.example resolves to 10.1.2.3, which is a private address',
    ],
    ['https://mixed.acme.example/hook', 'resolves to 192.168.0.10, which is a private address'],
    ['https://rebind.acme.example/hook', 'metadata address'],
    ['https://nowhere.acme.example/hook', 'cannot resolve nowhere.acme.example: ENOTFOUND'],
    ['https://user:secret@hooks.acme.example/ferry', 'must not carry credentials'],
    ['not a url', 'not a valid URL'],
  ])('refuses %s in production: %s', async (url, reason) => {
    const problem = await webhookEndpointProblem(url, {}, production, dns);
    expect(problem).toMatch(/^Refused webhook URL: /);
    expect(problem).toContain(reason);
  });

  it('with the development allowance: loopback over http or https is accepted, nothing else is', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hooks',
      'https://127.0.0.1/hooks',
      'http://[::1]:9/',
      'http://dev.localhost/',
    ]) {
      expect(await webhookEndpointProblem(url, {}, development, dns)).toBeNull();
    }
    const refused: [string, string][] = [
      ['https://10.0.0.1/hook', 'private address'],
      ['https://169.254.169.254/', 'metadata address'],
      ['https://[fe80::1]/', 'link-local address'],
      ['https://internal.acme.example/hook', 'private address'],
      [`http://${PUBLIC_V4}/hook`, 'http is allowed only to loopback'],
      ['http://hooks.acme.example/hook', 'http is allowed only to loopback'],
    ];
    for (const [url, reason] of refused) {
      expect(await webhookEndpointProblem(url, {}, development, dns)).toContain(reason);
    }
  });

  it('refuses an empty URL and one longer than 2048 characters', async () => {
    expect(await webhookEndpointProblem('  ', {}, production, dns)).toBe('Refused webhook URL: it is empty');
    const long = `https://hooks.acme.example/${'a'.repeat(2048)}`;
    expect(await webhookEndpointProblem(long, {}, production, dns)).toBe(
      'Refused webhook URL: it must be at most 2048 characters',
    );
  });
});

describe('webhookEndpointProblem: custom headers', () => {
  const url = 'https://hooks.acme.example/ferry';

  it('accepts ordinary headers (the receiver’s own authorization, a tenant id)', async () => {
    const headers = { Authorization: 'Bearer receiver-token', 'X-Tenant': 'acme', 'User-Agent': 'custom' };
    expect(await webhookEndpointProblem(url, headers, production, dns)).toBeNull();
  });

  it.each([
    'X-Signature-SHA256',
    'x-signature-sha256',
    'X-Signature-Timestamp',
    'X-SIGNATURE-TIMESTAMP',
    'X-Webhook-Id',
    'x-webhook-id',
    'Content-Type',
    'content-type',
    'Host',
    'HOST',
    'Content-Length',
    'Transfer-Encoding',
    'Connection',
  ])('refuses an override of %s, whatever its case', async (name) => {
    expect(await webhookEndpointProblem(url, { [name]: 'forged' }, production, dns)).toBe(
      `Refused webhook headers: ${name} cannot be set: the webhook sender sets it`,
    );
  });

  it('refuses invalid names and values, duplicates and too many headers', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'Bad Name': 'x' }, 'invalid header name "Bad Name"'],
      [{ 'X-Evil': 'a\r\nX-Signature-SHA256: forged' }, 'without CR, LF or control characters'],
      [{ 'X-Long': 'x'.repeat(4097) }, 'at most 4096 characters'],
      [{ 'X-Tenant': 'a', 'x-tenant': 'b' }, 'is given twice'],
      [
        Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])),
        'at most 20 custom headers',
      ],
      [{ 'X-Number': 5 as unknown as string }, 'X-Number must be a string'],
    ];
    for (const [headers, reason] of cases) {
      const problem = await webhookEndpointProblem(url, headers, production, dns);
      expect(problem).toMatch(/^Refused webhook headers: /);
      expect(problem).toContain(reason);
    }
  });

  it('checks the headers before resolving the host (no DNS lookup for a refused header)', async () => {
    const resolve = resolverOf({ 'hooks.acme.example': [PUBLIC_V4] });
    expect(await webhookEndpointProblem(url, { 'X-Webhook-Id': 'x' }, production, resolve)).toContain(
      'X-Webhook-Id cannot be set',
    );
    expect(resolve.asked).toEqual([]);
    expect(await webhookEndpointProblem(url, {}, production, resolve)).toBeNull();
    expect(resolve.asked).toEqual(['hooks.acme.example']);
  });
});

describe('webhookEndpointCheck and normalizeWebhookEndpoint', () => {
  it('webhookEndpointCheck fixes the policy: the check ApiKeysService.setWebhook takes', async () => {
    const check = webhookEndpointCheck(production, dns);
    expect(await check('https://hooks.acme.example/ferry', {})).toBeNull();
    expect(await check('https://10.0.0.1/hook', {})).toContain('private address');
    expect(await webhookEndpointCheck(development, dns)('http://127.0.0.1:1/x', {})).toBeNull();
  });

  it('trims the URL and header values, keeping names as given', () => {
    expect(
      normalizeWebhookEndpoint('  https://hooks.acme.example/ferry \n', {
        Authorization: '  Bearer t  ',
        'Bad Name': 'v',
      }),
    ).toEqual({
      url: 'https://hooks.acme.example/ferry',
      headers: { Authorization: 'Bearer t', 'Bad Name': 'v' },
    });
    expect(normalizeWebhookEndpoint('https://x.example/')).toEqual({
      url: 'https://x.example/',
      headers: {},
    });
  });
});

describe('parseIsoInstant: `since` of the delivery log', () => {
  it.each([
    ['2026-05-01', '2026-05-01T00:00:00.000Z'],
    ['2026-05-01T12:30Z', '2026-05-01T12:30:00.000Z'],
    ['2026-05-01T12:30:15Z', '2026-05-01T12:30:15.000Z'],
    ['2026-05-01T12:30:15.250Z', '2026-05-01T12:30:15.250Z'],
    ['2026-05-01T14:30:15+02:00', '2026-05-01T12:30:15.000Z'],
    ['2026-05-01T00:30:00-01:00', '2026-05-01T01:30:00.000Z'],
    ['2024-02-29T23:59:59Z', '2024-02-29T23:59:59.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseIsoInstant(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2026-05-01T12:30:15', // no time zone: the server's local time would be a guess
    '2026-02-31',
    '2026-02-31T10:00:00Z',
    '2025-02-29T00:00:00Z',
    '2026-13-01',
    '2026-05-01T25:00:00Z',
    'yesterday',
    '1714560000',
    '',
    '2026-W18',
  ])('refuses %j', (text) => {
    expect(parseIsoInstant(text)).toBeNull();
  });

  it('refuses what is not a string', () => {
    expect(parseIsoInstant(undefined)).toBeNull();
    expect(parseIsoInstant(['2026-05-01'])).toBeNull();
  });
});
