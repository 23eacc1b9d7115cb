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
