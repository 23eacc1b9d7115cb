/**
 * `since` of the delivery log (admin routes and CLI): an ISO 8601 date (`2026-05-01`, midnight UTC) or date-time
 * with a time zone (`2026-05-01T12:00:00Z`, `2026-05-01T14:00:00.5+02:00`). A date-time without a zone is refused:
 * it would be read in the server's local time.
 */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

export const ISO_INSTANT_HINT = 'an ISO 8601 date or date-time with a time zone (e.g. 2026-05-01T12:00:00Z)';

/** The instant `text` names, or null when it is not one (see above; impossible dates such as 02-31 included). */
export function parseIsoInstant(text: unknown): Date | null {
  if (typeof text !== 'string' || !ISO_INSTANT.test(text.trim())) return null;
  const trimmed = text.trim();
  const date = new Date(trimmed);
  if (Number.isNaN(date.getTime())) return null;
  // `new Date('2026-02-31')` is invalid, but `2026-02-31T00:00Z` rolls over to March: compare the calendar date
  // as written with the one parsed (in the written offset).
  const [, y, m, d] = /^(\d{4})-(\d{2})-(\d{2})/.exec(trimmed)!;
  const offset = /([+-])(\d{2}):(\d{2})$/.exec(trimmed);
  const offsetMs = offset
    ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) * 60_000
    : 0;
  const local = new Date(date.getTime() + offsetMs);
  if (
    local.getUTCFullYear() !== Number(y) ||
    local.getUTCMonth() + 1 !== Number(m) ||
    local.getUTCDate() !== Number(d)
  ) {
    return null;
  }
  return date;
}
