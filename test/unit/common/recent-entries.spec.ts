import { RecentEntries } from '../../../src/common/recent-entries.js';

describe(RecentEntries.name, () => {
  it('keeps the most recently set entries up to its capacity, forgetting the oldest', () => {
    const sut = new RecentEntries<string, number | null>(2);
    sut.set('a', 1);
    sut.set('b', null);
    sut.set('a', 3); // set again: now the most recent
    sut.set('c', 4);
    expect(sut.get('b')).toBeUndefined();
    expect(sut.get('a')).toBe(3);
    expect(sut.get('c')).toBe(4);
    expect(sut.size).toBe(2);
  });

  it('refuses a capacity that keeps nothing', () => {
    expect(() => new RecentEntries(0)).toThrow('capacity must be a positive integer');
  });
});
