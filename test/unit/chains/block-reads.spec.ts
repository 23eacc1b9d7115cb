import { NextRead, PerBlock } from '../../../src/chains/block-reads.js';

/** A read the test settles by hand, and a log of when each read started. */
function manualReads() {
  const started: { resolve: (value: bigint | null) => void; reject: (error: Error) => void }[] = [];
  return {
    started,
    read: () =>
      new Promise<bigint | null>((resolve, reject) => {
        started.push({ resolve, reject });
      }),
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe(NextRead.name, () => {
  it('starts a read when none is in flight, and shares it with nobody who asks after it started', async () => {
    const sut = new NextRead<bigint | null>();
    const reads = manualReads();
    const first = sut.get(reads.read);
    await flush();
    expect(reads.started).toHaveLength(1);
    // Asked while the first read is in flight: it may have been answered before this caller arrived.
    const second = sut.get(reads.read);
    const third = sut.get(reads.read);
    await flush();
    expect(reads.started).toHaveLength(1);
    reads.started[0].resolve(5n);
    expect(await first).toBe(5n);
    await flush();
    // One next read, started after both asked, shared by both.
    expect(reads.started).toHaveLength(2);
    reads.started[1].resolve(6n);
    expect(await second).toBe(6n);
    expect(await third).toBe(6n);
  });

  it('keeps at most two reads under way, and starts afresh once they settled', async () => {
    const sut = new NextRead<bigint | null>();
    const reads = manualReads();
    const answers = Array.from({ length: 10 }, () => sut.get(reads.read));
    await flush();
    expect(reads.started).toHaveLength(1);
    reads.started[0].resolve(1n);
    await flush();
    expect(reads.started).toHaveLength(2);
    reads.started[1].resolve(2n);
    expect(await Promise.all(answers)).toEqual([1n, ...Array(9).fill(2n)]);
    const later = sut.get(reads.read);
    await flush();
    expect(reads.started).toHaveLength(3);
    reads.started[2].resolve(3n);
    expect(await later).toBe(3n);
  });

  it('gives a failed read to its own callers only; the next read still starts', async () => {
    const sut = new NextRead<bigint | null>();
    const reads = manualReads();
    const failed = sut.get(reads.read);
    const next = sut.get(reads.read);
    await flush();
    reads.started[0].reject(new Error('timeout'));
    await expect(failed).rejects.toThrow('timeout');
    await flush();
    reads.started[1].resolve(7n);
    expect(await next).toBe(7n);
  });

  it('turns a read that throws at once into a rejection', async () => {
    const sut = new NextRead<bigint>();
    await expect(
      sut.get(() => {
        throw new Error('no client');
      }),
    ).rejects.toThrow('no client');
    expect(await sut.get(() => Promise.resolve(1n))).toBe(1n);
  });
});

describe(PerBlock.name, () => {
  const counting = () => {
    const calls: [bigint, string][] = [];
    return {
      calls,
      read: (key: string, value: bigint | null | Error) => (block: bigint) => {
        calls.push([block, key]);
        return value instanceof Error ? Promise.reject(value) : Promise.resolve(value);
      },
    };
  };

  it('reads once per block and key, at that block, and shares the answer (in flight too)', async () => {
    const sut = new PerBlock<bigint>();
    const reads = counting();
    const [a, b, c] = await Promise.all([
      sut.get(10n, 'solver', reads.read('solver', 100n)),
      sut.get(10n, 'solver', reads.read('solver', 999n)),
      sut.get(10n, 'user', reads.read('user', 5n)),
    ]);
    expect([a, b, c]).toEqual([100n, 100n, 5n]);
    expect(await sut.get(10n, 'solver', reads.read('solver', 999n))).toBe(100n);
    expect(reads.calls).toEqual([
      [10n, 'solver'],
      [10n, 'user'],
    ]);
  });

  it('never answers for a block with a value read at another block: a new block reads again', async () => {
    const sut = new PerBlock<bigint>();
    const reads = counting();
    expect(await sut.get(10n, 'solver', reads.read('solver', 100n))).toBe(100n);
    expect(await sut.get(11n, 'solver', reads.read('solver', 1n))).toBe(1n);
    // The head went back (a reorg, or another node behind the RPC URL): read again there too.
    expect(await sut.get(10n, 'solver', reads.read('solver', 50n))).toBe(50n);
    expect(reads.calls).toEqual([
      [10n, 'solver'],
      [11n, 'solver'],
      [10n, 'solver'],
    ]);
  });

  it('does not keep an answer the chain could not give (null or an error)', async () => {
    const sut = new PerBlock<bigint>();
    const reads = counting();
    expect(await sut.get(10n, 'solver', reads.read('solver', null))).toBeNull();
    await expect(sut.get(10n, 'solver', reads.read('solver', new Error('rpc')))).rejects.toThrow('rpc');
    await flush();
    expect(await sut.get(10n, 'solver', reads.read('solver', 100n))).toBe(100n);
    expect(reads.calls).toHaveLength(3);
  });
});
