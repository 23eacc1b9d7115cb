import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadAppConfig, type V2Schedule } from '../../../src/config/app-config.js';
import {
  V2_SUCCESSOR,
  v2DeprecationHeaders,
  v2DeprecationNotice,
  v2PolicyAt,
} from '../../../src/history/v2/v2-sunset.js';

/** The schedule as the app reads it (configs/app.test.json): every environment ships the same dates. */
const schedule: V2Schedule = loadAppConfig(
  { ENVIRONMENT: 'test', DATA_DIR: 'memory://v2-sunset' },
  resolve('configs'),
).v2;
const justBefore = (iso: string) => new Date(Date.parse(iso) - 1);
const at = (iso: string) => new Date(iso);

describe(v2PolicyAt.name, () => {
  it('reads the announced dates and the monthly limits from the config', () => {
    expect(schedule).toEqual({
      deprecatedAt: at('2026-07-22T00:00:00Z'),
      sunsetAt: at('2026-11-24T00:00:00Z'),
      rateLimits: [
        { from: at('2026-09-01T00:00:00Z'), perMinute: 60 },
        { from: at('2026-10-01T00:00:00Z'), perMinute: 30 },
        { from: at('2026-11-01T00:00:00Z'), perMinute: 15 },
      ],
    });
  });

  it.each([
    ['just before the deprecation', justBefore('2026-07-22T00:00:00Z'), 'available', null],
    ['at the deprecation', at('2026-07-22T00:00:00Z'), 'deprecated', null],
    ['just before the first limit', justBefore('2026-09-01T00:00:00Z'), 'deprecated', null],
    ['at the first limit (September)', at('2026-09-01T00:00:00Z'), 'rate-limited', 60],
    ['just before October', justBefore('2026-10-01T00:00:00Z'), 'rate-limited', 60],
    ['at October', at('2026-10-01T00:00:00Z'), 'rate-limited', 30],
    ['just before November', justBefore('2026-11-01T00:00:00Z'), 'rate-limited', 30],
    ['at November', at('2026-11-01T00:00:00Z'), 'rate-limited', 15],
    ['today (2026-11-22)', at('2026-11-22T12:00:00Z'), 'rate-limited', 15],
    ['just before the sunset', justBefore('2026-11-24T00:00:00Z'), 'rate-limited', 15],
    ['at the sunset', at('2026-11-24T00:00:00Z'), 'retired', null],
    ['long after the sunset', at('2027-06-01T00:00:00Z'), 'retired', null],
  ])('%s: %s, limit %s', (_when, now, phase, limitPerMinute) => {
    expect(v2PolicyAt(schedule, now)).toEqual({ phase, limitPerMinute });
  });
});

describe(v2DeprecationHeaders.name, () => {
  it('gives Deprecation as @unix-seconds (RFC 9745), Sunset as an HTTP-date (RFC 8594) and the successor link', () => {
    expect(v2DeprecationHeaders(schedule)).toEqual({
      Deprecation: '@1784678400',
      Sunset: 'Tue, 24 Nov 2026 00:00:00 GMT',
      Link: '</requests/v3>; rel="successor-version"',
    });
  });
});

describe(v2DeprecationNotice.name, () => {
  it('names the dates and the successor, and the limit in force', () => {
    const notice = v2DeprecationNotice(schedule, at('2026-11-22T00:00:00Z'));
    expect(notice).toEqual({
      deprecatedAt: '2026-07-22T00:00:00.000Z',
      sunsetAt: '2026-11-24T00:00:00.000Z',
      successor: V2_SUCCESSOR,
      message: expect.stringContaining('15 requests per minute'),
    });
    expect(notice.message).toContain('retired on 2026-11-24');
    expect(v2DeprecationNotice(schedule, at('2026-08-01T00:00:00Z')).message).not.toContain('per minute');
    expect(v2DeprecationNotice(schedule, at('2026-07-01T00:00:00Z')).message).toContain(
      'will be deprecated on 2026-07-22',
    );
  });
});

describe('the v2 section of configs/app.<env>.json', () => {
  const withV2 = (v2: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-v2-config-'));
    const base = JSON.parse(readFileSync(resolve('configs/app.test.json'), 'utf8'));
    writeFileSync(join(dir, 'app.test.json'), JSON.stringify({ ...base, v2 }));
    copyFileSync(resolve('configs/chains.test.json'), join(dir, 'chains.test.json'));
    return () => loadAppConfig({ ENVIRONMENT: 'test', DATA_DIR: 'memory://v2-config' }, dir);
  };
  const valid = {
    deprecatedAt: '2026-07-22T00:00:00Z',
    sunsetAt: '2026-11-24T00:00:00Z',
    rateLimits: [{ from: '2026-09-01T00:00:00Z', perMinute: 60 }],
  };

  it('is the same schedule in every environment', () => {
    for (const environment of ['development', 'production']) {
      const file = JSON.parse(readFileSync(resolve(`configs/app.${environment}.json`), 'utf8'));
      const test = JSON.parse(readFileSync(resolve('configs/app.test.json'), 'utf8'));
      expect(file.v2).toEqual(test.v2);
    }
  });

  it.each([
    [
      'a date without a time zone',
      { ...valid, sunsetAt: '2026-11-24T00:00:00' },
      /v2\.sunsetAt must be an ISO 8601/,
    ],
    [
      'a sunset before the deprecation',
      { ...valid, sunsetAt: '2026-07-01T00:00:00Z' },
      /v2\.sunsetAt must be after/,
    ],
    [
      'limits out of order',
      {
        ...valid,
        rateLimits: [
          { from: '2026-10-01T00:00:00Z', perMinute: 30 },
          { from: '2026-09-01T00:00:00Z', perMinute: 60 },
        ],
      },
      /v2\.rateLimits\.1\.from must be ascending/,
    ],
    [
      'a limit after the sunset',
      { ...valid, rateLimits: [{ from: '2026-12-01T00:00:00Z', perMinute: 5 }] },
      /v2\.rateLimits\.0\.from must be ascending/,
    ],
    [
      'a limit of zero',
      { ...valid, rateLimits: [{ from: '2026-09-01T00:00:00Z', perMinute: 0 }] },
      /v2\.rateLimits\.0\.perMinute must be between 1/,
    ],
    ['no limit list', { ...valid, rateLimits: 'monthly' }, /v2\.rateLimits must be an array/],
  ])('stops start-up on %s, naming the path', (_what, v2, message) => {
    expect(withV2(v2)).toThrow(message);
  });

  it('accepts an empty limit list (no rate limit before the sunset)', () => {
    expect(withV2({ ...valid, rateLimits: [] })().v2.rateLimits).toEqual([]);
  });
});
