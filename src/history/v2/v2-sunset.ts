import type { V2Schedule } from '../../config/app-config.js';

/** Where v2's callers should go instead. */
export const V2_SUCCESSOR = '/requests/v3';

/**
 * Where `GET /requests/v2` stands at a given time:
 * - `available`: before `deprecatedAt`;
 * - `deprecated`: from `deprecatedAt`, still unlimited;
 * - `rate-limited`: from the first rate-limit date, `limitPerMinute` requests per minute per caller, the limit of the
 *   last date reached (so it shrinks each month);
 * - `retired`: from `sunsetAt` on, every call answers 410.
 * Each date is inclusive: at exactly `sunsetAt` the endpoint is retired.
 */
export type V2Policy =
  | { readonly phase: 'available' | 'deprecated' | 'retired'; readonly limitPerMinute: null }
  | { readonly phase: 'rate-limited'; readonly limitPerMinute: number };

/** Pure: the policy in force at `now`. */
export function v2PolicyAt(schedule: V2Schedule, now: Date): V2Policy {
  const at = now.getTime();
  if (at >= schedule.sunsetAt.getTime()) return { phase: 'retired', limitPerMinute: null };
  const limit = schedule.rateLimits.findLast(({ from }) => at >= from.getTime());
  if (limit) return { phase: 'rate-limited', limitPerMinute: limit.perMinute };
  return { phase: at >= schedule.deprecatedAt.getTime() ? 'deprecated' : 'available', limitPerMinute: null };
}

/**
 * The headers every v2 answer carries (errors included): `Deprecation` in the RFC 9745 form `@<unix seconds>`,
 * `Sunset` as an RFC 8594 HTTP-date, and a `Link` to the successor.
 */
export function v2DeprecationHeaders(schedule: V2Schedule): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(schedule.deprecatedAt.getTime() / 1000)}`,
    Sunset: schedule.sunsetAt.toUTCString(),
    Link: `<${V2_SUCCESSOR}>; rel="successor-version"`,
  };
}

/** The `deprecation` block of a v2 answer: the dates, the successor and what applies now, in words. */
export interface V2DeprecationNotice {
  readonly deprecatedAt: string;
  readonly sunsetAt: string;
  readonly successor: string;
  readonly message: string;
}

/** Pure: the notice at `now`. */
export function v2DeprecationNotice(schedule: V2Schedule, now: Date): V2DeprecationNotice {
  const policy = v2PolicyAt(schedule, now);
  const day = (date: Date) => date.toISOString().slice(0, 10);
  const status =
    policy.phase === 'available'
      ? `will be deprecated on ${day(schedule.deprecatedAt)}`
      : `is deprecated since ${day(schedule.deprecatedAt)}`;
  const limit =
    policy.phase === 'rate-limited'
      ? ` It is limited to ${policy.limitPerMinute} requests per minute per caller, less each month.`
      : '';
  return {
    deprecatedAt: schedule.deprecatedAt.toISOString(),
    sunsetAt: schedule.sunsetAt.toISOString(),
    successor: V2_SUCCESSOR,
    message:
      `GET /requests/v2 ${status} and is retired on ` +
      `${day(schedule.sunsetAt)}, after which it answers 410.${limit} Use GET ${V2_SUCCESSOR} (x-api-key required).`,
  };
}
