/**
 * Runs `fn` over `items`, at most `limit` at a time, in order of start. Every item is run even when one fails; the
 * first failure is thrown once all have settled.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item).catch((error: unknown) => failures.push(error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}
