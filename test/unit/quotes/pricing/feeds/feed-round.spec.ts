import {
  checkFeedRound,
  type FeedRound,
  MAX_FUTURE_SECONDS,
  usdFromAnswer,
} from '../../../../../src/quotes/domain/pricing/feeds/feed-round.js';

const NOW = new Date('2026-11-25T03:00:00Z');
const nowSeconds = BigInt(NOW.getTime() / 1000);
const policy = { maxAgeSeconds: 3600, maxDeviationBps: 2000 };

function round(answer: bigint, overrides: Partial<FeedRound> = {}): FeedRound {
  return {
    roundId: 7n,
    answer,
    startedAt: nowSeconds - 60n,
    updatedAt: nowSeconds - 60n,
    answeredInRound: 7n,
    ...overrides,
  };
}

describe(usdFromAnswer.name, () => {
  it.each([
    [300_000_000_000n, 8, '3000'],
    [99_980_000n, 8, '0.9998'],
    [1n, 8, '0.00000001'],
    [3000n * 10n ** 18n, 18, '3000'],
    [123_456n, 2, '1234.56'],
    [42n, 0, '42'],
    // Beyond 18 fractional digits the answer is rounded half away from zero, never truncated through a float.
    [123_456_789_012_345_678_951n, 20, '1.23456789012345679'],
    [123_456_789_012_345_678_949n, 20, '1.234567890123456789'],
    [2n ** 255n - 1n, 8, '578960446186580977117854925043439539266349923328202820197287920039565.64819967'],
  ])('converts %s at %s decimals exactly to %s', (answer, decimals, usd) => {
    expect(usdFromAnswer(answer, decimals)).toBe(usd);
  });
});

describe(checkFeedRound.name, () => {
  const check = (latest: FeedRound, previous: FeedRound | null = null, decimals = 8, now = NOW) =>
    checkFeedRound({ latest, previous, decimals, policy, now });

  it('accepts a fresh, complete, positive round and converts it', () => {
    expect(check(round(300_000_000_000n), round(299_000_000_000n, { roundId: 6n }))).toEqual({
      ok: true,
      usd: '3000',
    });
  });

  it.each([
    ['a zero answer', 0n],
    ['a negative answer', -300_000_000_000n],
  ])('refuses %s', (_, answer) => {
    expect(check(round(answer))).toMatchObject({ ok: false, reason: 'non-positive-answer' });
  });

  it('refuses an answer that rounds to zero at its precision', () => {
    expect(check(round(1n), null, 30)).toMatchObject({ ok: false, reason: 'non-positive-answer' });
  });

  it('refuses a round answered in an earlier round, and one never updated', () => {
    expect(check(round(300_000_000_000n, { answeredInRound: 6n }))).toMatchObject({
      ok: false,
      reason: 'incomplete-round',
    });
    expect(check(round(300_000_000_000n, { updatedAt: 0n }))).toMatchObject({
      ok: false,
      reason: 'incomplete-round',
    });
  });

  it('refuses a round older than maxAgeSeconds, and accepts one exactly at the limit', () => {
    const atLimit = round(300_000_000_000n, { updatedAt: nowSeconds - 3600n });
    expect(check(atLimit)).toEqual({ ok: true, usd: '3000' });
    const stale = check(round(300_000_000_000n, { updatedAt: nowSeconds - 3601n }));
    expect(stale).toMatchObject({
      ok: false,
      reason: 'stale',
      details: { updatedAt: '2026-11-25T01:59:59.000Z', ageSeconds: 3601, maxAgeSeconds: 3600 },
    });
  });

  it('measures age against the clock it is given, not the chain', () => {
    const later = new Date(NOW.getTime() + 2 * 3600 * 1000);
    expect(check(round(300_000_000_000n), null, 8, later)).toMatchObject({ ok: false, reason: 'stale' });
  });

  it('refuses a round dated further ahead than the clock skew allowance (it would never turn stale)', () => {
    const ahead = (seconds: bigint) => round(300_000_000_000n, { updatedAt: nowSeconds + seconds });
    expect(check(ahead(BigInt(MAX_FUTURE_SECONDS)))).toMatchObject({ ok: true });
    expect(check(ahead(BigInt(MAX_FUTURE_SECONDS) + 1n))).toMatchObject({
      ok: false,
      reason: 'future-round',
    });
  });

  it('refuses a move past maxDeviationBps from the previous round, either way, and accepts one at the limit', () => {
    const previous = round(300_000_000_000n, { roundId: 6n, answeredInRound: 6n });
    expect(check(round(360_000_000_000n), previous)).toMatchObject({ ok: true, usd: '3600' });
    expect(check(round(240_000_000_000n), previous)).toMatchObject({ ok: true, usd: '2400' });
    expect(check(round(360_000_000_001n), previous)).toMatchObject({
      ok: false,
      reason: 'deviation',
      details: { previousAnswer: '3000', answer: '3600.00000001', maxDeviationBps: 2000 },
    });
    expect(check(round(239_999_999_999n), previous)).toMatchObject({ ok: false, reason: 'deviation' });
  });

  it('skips the deviation check without a previous round or without a limit', () => {
    expect(check(round(900_000_000_000n))).toMatchObject({ ok: true, usd: '9000' });
    const previous = round(300_000_000_000n, { roundId: 6n });
    expect(
      checkFeedRound({
        latest: round(900_000_000_000n),
        previous,
        decimals: 8,
        policy: { ...policy, maxDeviationBps: null },
        now: NOW,
      }),
    ).toMatchObject({ ok: true });
  });
});
