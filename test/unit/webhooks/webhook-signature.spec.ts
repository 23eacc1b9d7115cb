import { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook } from '../../../src/webhooks/index.js';

// Known-answer vector. EXPECTED was computed once, independently of Ferry's code, with:
//   node -e "console.log(require('crypto').createHmac('sha256', KEY).update(TS + '.' + BODY).digest('hex'))"
const KEY = 'fk_test_4f1c2a9b7d';
const TS = 1793509749;
const BODY = '{"event":"request.status.updated","timestamp":1793509749000}';
const EXPECTED = '3f444baa4cbce13ca93b0d97327a7c605b197088773e2e504a38e8da59b1ad25';
const NOW = () => TS * 1000 + 1_500;

const headersOf = (timestamp: string, signature: string) => ({
  'x-signature-timestamp': timestamp,
  'x-signature-sha256': signature,
});

describe('signWebhook', () => {
  it('matches the known-answer vector and an independent node:crypto computation', () => {
    const independent = createHmac('sha256', KEY).update(`${TS}.${BODY}`).digest('hex');
    expect(independent).toBe(EXPECTED);
    expect(signWebhook(BODY, KEY, TS)).toEqual({
      'X-Signature-Timestamp': '1793509749',
      'X-Signature-SHA256': EXPECTED,
    });
  });

  it('signs the body bytes as UTF-8 (non-ASCII included)', () => {
    const body = '{"referrer":"café – 東京"}';
    const independent = createHmac('sha256', KEY)
      .update(Buffer.concat([Buffer.from(`${TS}.`), Buffer.from(body, 'utf8')]))
      .digest('hex');
    expect(signWebhook(body, KEY, TS)['X-Signature-SHA256']).toBe(independent);
  });

  it('refuses a non-integer or negative timestamp and an empty key (programming errors)', () => {
    expect(() => signWebhook(BODY, KEY, 1.5)).toThrow(RangeError);
    expect(() => signWebhook(BODY, KEY, -1)).toThrow(RangeError);
    expect(() => signWebhook(BODY, '', TS)).toThrow(TypeError);
  });
});

describe('verifyWebhook', () => {
  const good = headersOf(String(TS), EXPECTED);

  it('accepts the vector as a string body, a Buffer body and with any header-name case', () => {
    expect(verifyWebhook(BODY, good, KEY, { now: NOW })).toEqual({ ok: true });
    expect(verifyWebhook(Buffer.from(BODY), good, KEY, { now: NOW })).toEqual({ ok: true });
    expect(
      verifyWebhook(BODY, { 'X-SIGNATURE-TIMESTAMP': String(TS), 'X-Signature-Sha256': EXPECTED }, KEY, {
        now: NOW,
      }),
    ).toEqual({ ok: true });
    // Node gives single values as strings; a one-element array (some frameworks) is the same.
    expect(
      verifyWebhook(BODY, { ...headersOf(String(TS), EXPECTED), extra: ['a', 'b'] }, KEY, { now: NOW }).ok,
    ).toBe(true);
  });

  it('accepts a Fetch Headers object', () => {
    const headers = new Headers({ 'X-Signature-Timestamp': String(TS), 'X-Signature-SHA256': EXPECTED });
    expect(verifyWebhook(BODY, headers, KEY, { now: NOW })).toEqual({ ok: true });
  });

  it('accepts an upper-case hex signature (hex is case-insensitive)', () => {
    expect(verifyWebhook(BODY, headersOf(String(TS), EXPECTED.toUpperCase()), KEY, { now: NOW })).toEqual({
      ok: true,
    });
  });

  it('uses Date.now by default', () => {
    const ts = Math.floor(Date.now() / 1000);
    const signed = signWebhook(BODY, KEY, ts);
    expect(verifyWebhook(BODY, signed, KEY)).toEqual({ ok: true });
  });

  const cases: [string, Parameters<typeof verifyWebhook>, string][] = [
    [
      'a tampered body',
      [BODY.replace('1793509749000', '1793509749001'), good, KEY, { now: NOW }],
      'signature-mismatch',
    ],
    [
      'a re-serialised body (whitespace added)',
      [JSON.stringify(JSON.parse(BODY), null, 2), good, KEY, { now: NOW }],
      'signature-mismatch',
    ],
    ['the wrong key', [BODY, good, `${KEY}x`, { now: NOW }], 'signature-mismatch'],
    ['an empty key', [BODY, good, '', { now: NOW }], 'signature-mismatch'],
    [
      'a timestamp changed after signing',
      [BODY, headersOf(String(TS + 1), EXPECTED), KEY, { now: NOW }],
      'signature-mismatch',
    ],
    [
      'one flipped hex digit',
      [
        BODY,
        headersOf(String(TS), `${EXPECTED.slice(0, 63)}${EXPECTED[63] === '5' ? '6' : '5'}`),
        KEY,
        { now: NOW },
      ],
      'signature-mismatch',
    ],
    ['a stale timestamp (301 s old)', [BODY, good, KEY, { now: () => (TS + 301) * 1000 }], 'stale-timestamp'],
    [
      'a future timestamp (301 s ahead)',
      [BODY, good, KEY, { now: () => (TS - 301) * 1000 }],
      'stale-timestamp',
    ],
    [
      'a timestamp outside a custom tolerance',
      [BODY, good, KEY, { now: () => (TS + 11) * 1000, toleranceSeconds: 10 }],
      'stale-timestamp',
    ],
    [
      'a truncated signature',
      [BODY, headersOf(String(TS), EXPECTED.slice(0, 63)), KEY, { now: NOW }],
      'malformed-signature',
    ],
    [
      'a too-long signature',
      [BODY, headersOf(String(TS), `${EXPECTED}00`), KEY, { now: NOW }],
      'malformed-signature',
    ],
    [
      'a non-hex signature',
      [BODY, headersOf(String(TS), `${EXPECTED.slice(0, 63)}g`), KEY, { now: NOW }],
      'malformed-signature',
    ],
    [
      'a prefixed signature',
      [BODY, headersOf(String(TS), `sha256=${EXPECTED}`), KEY, { now: NOW }],
      'malformed-signature',
    ],
    [
      'a base64 signature',
      [BODY, headersOf(String(TS), Buffer.from(EXPECTED, 'hex').toString('base64')), KEY, { now: NOW }],
      'malformed-signature',
    ],
    [
      'two signature headers',
      [
        BODY,
        { 'x-signature-timestamp': String(TS), 'x-signature-sha256': [EXPECTED, EXPECTED] },
        KEY,
        { now: NOW },
      ],
      'malformed-signature',
    ],
    [
      'a timestamp in milliseconds far from now',
      [BODY, headersOf(String(TS * 1000), EXPECTED), KEY, { now: NOW }],
      'stale-timestamp',
    ],
    [
      'a fractional timestamp',
      [BODY, headersOf(`${TS}.5`, EXPECTED), KEY, { now: NOW }],
      'malformed-timestamp',
    ],
    ['a negative timestamp', [BODY, headersOf(`-${TS}`, EXPECTED), KEY, { now: NOW }], 'malformed-timestamp'],
    [
      'a date as timestamp',
      [BODY, headersOf(new Date(TS * 1000).toUTCString(), EXPECTED), KEY, { now: NOW }],
      'malformed-timestamp',
    ],
    [
      'no signature header',
      [BODY, { 'x-signature-timestamp': String(TS) }, KEY, { now: NOW }],
      'missing-headers',
    ],
    ['no timestamp header', [BODY, { 'x-signature-sha256': EXPECTED }, KEY, { now: NOW }], 'missing-headers'],
    ['empty header values', [BODY, headersOf('', ''), KEY, { now: NOW }], 'missing-headers'],
    ['no headers at all', [BODY, {}, KEY, { now: NOW }], 'missing-headers'],
  ];

  it.each(cases)('refuses %s without throwing', (_name, args, reason) => {
    expect(verifyWebhook(...args)).toEqual({ ok: false, reason });
  });

  it('accepts the edges of the window in both directions', () => {
    expect(verifyWebhook(BODY, good, KEY, { now: () => (TS + 300) * 1000 }).ok).toBe(true);
    expect(verifyWebhook(BODY, good, KEY, { now: () => (TS - 300) * 1000 }).ok).toBe(true);
  });

  it('never throws, whatever it is given', () => {
    const junk: unknown[] = [
      null,
      undefined,
      42,
      'text',
      [],
      { get: () => 42 },
      { 'x-signature-timestamp': 5 },
    ];
    for (const headers of junk) {
      expect(() => verifyWebhook(BODY, headers as never, KEY, { now: NOW })).not.toThrow();
      expect(verifyWebhook(BODY, headers as never, KEY, { now: NOW }).ok).toBe(false);
    }
    expect(verifyWebhook(null as never, good, KEY, { now: NOW })).toEqual({
      ok: false,
      reason: 'signature-mismatch',
    });
    expect(verifyWebhook(BODY, good, undefined as never, { now: NOW }).ok).toBe(false);
    expect(
      verifyWebhook(BODY, good, KEY, {
        now: () => {
          throw new Error('clock broke');
        },
      }).ok,
    ).toBe(false);
    expect(verifyWebhook(BODY, good, KEY, { now: () => NaN }).ok).toBe(false);
  });
});
