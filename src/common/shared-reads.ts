/**
 * Reads shared by key: concurrent callers of one key share the read in flight, and its settled result (a failure
 * too, when the read rejects) is reused for `ttlMs` after it settled, so a dead endpoint costs one timeout per period
 * rather than one per caller. With `ttlMs` 0 only reads in flight are shared.
 *
 * @example const gasPrices = new SharedReads<bigint>(2_000); await gasPrices.get('31337', () => client.getGasPrice());
 */
export class SharedReads<V> {
  private readonly entries = new Map<string, { readonly read: Promise<V>; settledAt: number | null }>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, read: () => Promise<V>): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && (entry.settledAt === null || this.now() - entry.settledAt < this.ttlMs)) return entry.read;
    const fresh: { readonly read: Promise<V>; settledAt: number | null } = { read: read(), settledAt: null };
    this.entries.set(key, fresh);
    const settle = () => {
      fresh.settledAt = this.now();
      if (this.ttlMs === 0 && this.entries.get(key) === fresh) this.entries.delete(key);
    };
    fresh.read.then(settle, settle);
    return fresh.read;
  }
}
