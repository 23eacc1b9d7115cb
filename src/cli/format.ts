import type { Position } from '../event-store/event-store.js';

/** JSON with bigint values as decimal strings (JSON.stringify throws on bigint); `indent` spaces when given. */
export function toJson(value: unknown, indent?: number): string {
  return (
    JSON.stringify(
      value,
      (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item),
      indent,
    ) ?? 'undefined'
  );
}

/** `<commit>/<prepare>` in decimal. */
export function formatPosition(position: Position): string {
  return `${position.commit.toString()}/${position.prepare.toString()}`;
}

/** Left-aligned columns separated by two spaces; the last column is not padded. */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, [...cell].length)));
  }
  return rows.map((row) =>
    row
      .map((cell, index) =>
        index === row.length - 1 ? cell : cell + ' '.repeat(widths[index] - [...cell].length),
      )
      .join('  ')
      .trimEnd(),
  );
}

/** How a listing command prints its rows: a JSON array with `--json`, else `empty` or a table under `header`. */
export interface Listing<R> {
  readonly json: boolean;
  readonly empty: string;
  readonly header: readonly string[];
  readonly cells: (row: R) => readonly string[];
  readonly asJson: (row: R) => unknown;
}

/** Prints `rows` as `listing` says (the listings' `--json` convention: docs/operations.md). */
export function printListing<R>(out: (line: string) => void, rows: readonly R[], listing: Listing<R>): void {
  if (listing.json) {
    out(toJson(rows.map(listing.asJson), 2));
    return;
  }
  if (rows.length === 0) {
    out(listing.empty);
    return;
  }
  for (const line of formatTable([listing.header, ...rows.map(listing.cells)])) out(line);
}

/** `--limit`'s value: a whole number from 1 to 9999 (`fallback` when absent), or the problem with it. */
export function parseLimit(value: string | undefined, fallback: number): number | string {
  if (value === undefined) return fallback;
  if (!/^[1-9]\d{0,3}$/.test(value))
    return `--limit must be a whole number from 1 to 9999 (got ${JSON.stringify(value)})`;
  return Number(value);
}
