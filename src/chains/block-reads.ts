/**
 * Reads shared per chain head, for quotes (docs/quotes.md, "Liquidity"): one `eth_blockNumber` answers every quote
 * waiting for it, and a wallet's balance (or allowance) is read once per block and reused by every quote that finds
 * the chain at that same block.
 *
 * Freshness: a caller never gets a head read that was already in flight when it asked (that read may have been
 * answered by the node before the caller arrived); it waits for the next one, which starts as soon as the read in
 * flight settles and is shared by everyone who asked meanwhile. So a value served from the cache is the value at a
 * block that was the chain's head after the caller asked (as far as the node knows): never older than the current
 * block. At most two head reads per chain are under way at a time.
 */
export class NextRead<V> {
  private inFlight: Promise<V> | null = null;
  private queued: Promise<V> | null = null;

  /** The result of a read that starts no earlier than this call. */
  get(read: () => Promise<V>): Promise<V> {
    if (this.inFlight === null) return this.start(read);
    if (this.queued === null) {
      const queued = this.inFlight.then(
        () => undefined,
        () => undefined,
      );
      this.queued = queued.then(() => {
        this.queued = null;
        return this.start(read);
      });
    }
    return this.queued;
  }

  private start(read: () => Promise<V>): Promise<V> {
    const started = Promise.resolve().then(read);
    this.inFlight = started;
    const settle = () => {
      if (this.inFlight === started) this.inFlight = null;
    };
    started.then(settle, settle);
    return started;
  }
}

/** A `NextRead` per key (a chain, say), made on first use: `get(key, read)` is that key's `NextRead.get(read)`. */
export class NextReads<K, V> {
  private readonly reads = new Map<K, NextRead<V>>();

  get(key: K, read: () => Promise<V>): Promise<V> {
    let next = this.reads.get(key);
    if (!next) {
      next = new NextRead();
      this.reads.set(key, next);
    }
    return next.get(read);
  }
}

/**
 * Values that only change from block to block, kept for the block last asked about: `get(block, key, read)` reads
 * once per (block, key), at that block, and shares the answer (in flight too). Another block number (later, or
 * earlier after a reorg) drops what was kept, so memory is bounded by the keys of one block. A read that answers null
 * (the chain could not tell) is not kept: the next caller tries again. Limit: a reorg that replaces the head block by
 * another of the same number is not seen (`eth_blockNumber` has no hash); the values of the replaced block are served
 * until the next block number.
 */
export class PerBlock<V> {
  private block: bigint | null = null;
  private values = new Map<string, Promise<V | null>>();

  get(block: bigint, key: string, read: (block: bigint) => Promise<V | null>): Promise<V | null> {
    if (block !== this.block) {
      this.block = block;
      this.values = new Map();
    }
    const kept = this.values.get(key);
    if (kept !== undefined) return kept;
    const values = this.values;
    const value = read(block);
    values.set(key, value);
    const forget = () => {
      if (values.get(key) === value) values.delete(key);
    };
    value.then((answer) => {
      if (answer === null) forget();
    }, forget);
    return value;
  }
}
