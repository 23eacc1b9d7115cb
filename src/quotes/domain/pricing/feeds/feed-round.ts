import { fromUnits } from '../decimal.js';
import type { PriceRefusal } from './price-error.js';

/** One round of a Chainlink-style feed, as `latestRoundData` / `getRoundData` return it. */
export interface FeedRound {
  readonly roundId: bigint;
  readonly answer: bigint;
  readonly startedAt: bigint;
  readonly updatedAt: bigint;
  readonly answeredInRound: bigint;
}

/** What one feed's answer must satisfy (configured per feed, docs/prices.md). */
export interface FeedPolicy {
  /** The oldest `updatedAt` accepted, in seconds before now: the feed's heartbeat plus a margin. */
  readonly maxAgeSeconds: number;
  /** The largest move from the feed's previous round, in basis points; null: no deviation check. */
  readonly maxDeviationBps: number | null;
}

/**
 * How far a round's `updatedAt` may be ahead of Ferry's clock: local chains mine blocks ahead of the wall clock
 * under load, but a round dated further ahead would never turn stale, so it is refused.
 */
export const MAX_FUTURE_SECONDS = 300;

export interface CheckFeedRoundParameters {
  readonly latest: FeedRound;
  /** The round before `latest` (`roundId - 1`), or null when the feed has none (first round, new phase). */
  readonly previous: FeedRound | null;
  readonly decimals: number;
  readonly policy: FeedPolicy;
  readonly now: Date;
}

export type CheckFeedRoundReturnType =
  | { readonly ok: true; readonly usd: string }
  | {
      readonly ok: false;
      readonly reason: PriceRefusal;
      readonly message: string;
      readonly details: Record<string, unknown>;
    };

/**
 * Whether a feed's latest round may price a quote, and its answer as USD per whole unit. Pure: the clock comes in.
 * Checks, in order: a positive answer, a complete round (`answeredInRound >= roundId`, `updatedAt` set), not dated
 * in the future, not older than `maxAgeSeconds`, and not moved more than `maxDeviationBps` from the previous round
 * (a jump that large is more likely a broken or manipulated feed than the market; the next round that confirms it
 * is accepted, since it is then compared with the jumped one).
 *
 * @example checkFeedRound({ latest, previous, decimals: 8, policy, now }); // { ok: true, usd: '3000' }
 */
export function checkFeedRound({
  latest,
  previous,
  decimals,
  policy,
  now,
}: CheckFeedRoundParameters): CheckFeedRoundReturnType {
  const round = { roundId: latest.roundId.toString() };
  const usd = latest.answer > 0n ? usdFromAnswer(latest.answer, decimals) : '0';
  if (usd === '0') {
    return refuse(
      'non-positive-answer',
      `The feed answered ${latest.answer}: a price must be greater than 0`,
      {
        ...round,
        answer: latest.answer.toString(),
      },
    );
  }
  if (latest.updatedAt === 0n || latest.answeredInRound < latest.roundId) {
    return refuse('incomplete-round', `Round ${latest.roundId} of the feed is not complete`, {
      ...round,
      answeredInRound: latest.answeredInRound.toString(),
    });
  }
  const nowSeconds = BigInt(Math.floor(now.getTime() / 1000));
  const updatedAt = { updatedAt: isoSeconds(latest.updatedAt) };
  if (latest.updatedAt > nowSeconds + BigInt(MAX_FUTURE_SECONDS)) {
    return refuse('future-round', `The feed's round is dated ${updatedAt.updatedAt}, in the future`, {
      ...round,
      ...updatedAt,
    });
  }
  const ageSeconds = nowSeconds - latest.updatedAt;
  if (ageSeconds > BigInt(policy.maxAgeSeconds)) {
    return refuse(
      'stale',
      `The feed was last updated ${ageSeconds} s ago, more than its ${policy.maxAgeSeconds} s limit`,
      { ...round, ...updatedAt, ageSeconds: Number(ageSeconds), maxAgeSeconds: policy.maxAgeSeconds },
    );
  }
  if (policy.maxDeviationBps !== null && previous !== null && previous.answer > 0n) {
    const move = abs(latest.answer - previous.answer) * 10_000n;
    if (move > BigInt(policy.maxDeviationBps) * previous.answer) {
      return refuse(
        'deviation',
        `The feed moved from ${usdFromAnswer(previous.answer, decimals)} to ${usd} in one round, more than ` +
          `${policy.maxDeviationBps} bps`,
        {
          ...round,
          previousAnswer: usdFromAnswer(previous.answer, decimals),
          answer: usd,
          maxDeviationBps: policy.maxDeviationBps,
        },
      );
    }
  }
  return { ok: true, usd };
}

/**
 * A feed's integer answer as a decimal string of USD per whole unit: exact for up to 18 decimals, rounded half away
 * from zero to 18 fractional digits beyond (the precision every price is computed with). Never a float.
 *
 * @example usdFromAnswer(300000000000n, 8); // '3000'
 */
export function usdFromAnswer(answer: bigint, decimals: number): string {
  return fromUnits(answer, decimals, 'halfExpand').toString();
}

function refuse(
  reason: PriceRefusal,
  message: string,
  details: Record<string, unknown>,
): CheckFeedRoundReturnType {
  return { ok: false, reason, message, details };
}

const abs = (value: bigint): bigint => (value < 0n ? -value : value);

function isoSeconds(seconds: bigint): string {
  const ms = seconds * 1000n;
  return ms > 8_640_000_000_000_000n ? `${seconds} s` : new Date(Number(ms)).toISOString();
}
