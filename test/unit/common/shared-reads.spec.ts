import { SharedReads } from '../../../src/common/shared-reads.js';

describe(SharedReads.name, () => {
  let now = 0;
  const counted = () => {
    let calls = 0;
    return {
      read: (value: string) => () => {
        calls += 1;
        return Promise.resolve(value);
      },
      get calls() {
        return calls;
      },
    };
  };

  beforeEach(() => (now = 1_000));

  it('shares a read in flight between callers of one key, and keeps keys apart', async () => {
    const sut = new SharedReads<string>(0, () => now);
    const reads = counted();
    const [a, b, c] = await Promise.all([
      sut.get('x', reads.read('first')),
      sut.get('x', reads.read('second')),
      sut.get('y', reads.read('other')),
    ]);
    expect([a, b, c]).toEqual(['first', 'first', 'other']);
    expect(reads.calls).toBe(2);
  });

  it('reuses a settled result for ttlMs after it settled, then reads again', async () => {
    const sut = new SharedReads<string>(2_000, () => now);
    const reads = counted();
    await sut.get('x', reads.read('first'));
    now += 1_999;
    expect(await sut.get('x', reads.read('second'))).toBe('first');
    now += 1;
    expect(await sut.get('x', reads.read('third'))).toBe('third');
    expect(reads.calls).toBe(2);
  });

  it('with ttlMs 0 reads again once the read in flight settled', async () => {
    const sut = new SharedReads<string>(0, () => now);
    const reads = counted();
    await sut.get('x', reads.read('first'));
    expect(await sut.get('x', reads.read('second'))).toBe('second');
  });

  it('remembers a failure for ttlMs too (a dead endpoint costs one timeout per period)', async () => {
    const sut = new SharedReads<string>(2_000, () => now);
    let calls = 0;
    const failing = () => {
      calls += 1;
      return Promise.reject(new Error('down'));
    };
    await expect(sut.get('x', failing)).rejects.toThrow('down');
    await expect(sut.get('x', failing)).rejects.toThrow('down');
    expect(calls).toBe(1);
  });
});
