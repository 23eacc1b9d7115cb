/**
 * A map that keeps its `capacity` most recently set entries: setting one past the capacity forgets the oldest. For
 * facts that never change once known (a request's API key), kept to spare a read, never as the only copy.
 *
 * @example const keys = new RecentEntries<string, number>(2); keys.set('a', 1); keys.set('b', 2); keys.set('c', 3);
 * keys.get('a') // undefined
 */
export class RecentEntries<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('capacity must be a positive integer');
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  get size(): number {
    return this.entries.size;
  }
}
