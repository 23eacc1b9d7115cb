import { labelOf, parseApiKeys } from '../../../src/oracle/config/api-keys.js';

describe(parseApiKeys.name, () => {
  it('reads <key>:<label> entries separated by ;, spaces around entries and a trailing ; allowed', () => {
    const sut = parseApiKeys(' k-one:operations ; k-two:peer operator B:eu;');
    expect(sut.map((key) => key.label)).toEqual(['operations', 'peer operator B:eu']);
  });

  it('keeps a digest, not the key', () => {
    const [sut] = parseApiKeys('k-secret-1234:ops');
    expect(Object.keys(sut).sort()).toEqual(['digest', 'label']);
    expect(sut.digest).toHaveLength(32);
    expect(sut.digest.toString('utf8')).not.toContain('k-secret-1234');
  });

  it.each([
    ['a key without label', 'k-secret-1234', 'entry 1'],
    ['an empty label', 'k-ok:ops;k-secret-1234:', 'entry 2'],
    ['an empty key', ':label-only', 'entry 1'],
    ['a key with a space', 'k-ok:ops; k-secret 1234:ops2', 'entry 2'],
    ['an empty entry in the middle', 'k-ok:ops;;k-secret-1234:x', 'entry 2'],
    ['nothing but a separator', ';', 'entry 1'],
    ['a key listed twice', 'k-secret-1234:a;k-secret-1234:b', 'entry 2 repeats'],
  ])('stops start-up on %s, naming API_KEYS and the entry, never the key', (_name, text, where) => {
    let error: Error | undefined;
    try {
      parseApiKeys(text);
    } catch (caught) {
      error = caught as Error;
    }
    expect(error?.message).toMatch(/^Invalid configuration: API_KEYS /);
    expect(error?.message).toContain(where);
    expect(error?.message).not.toContain('k-secret');
  });
});

describe(labelOf.name, () => {
  const keys = parseApiKeys('k-first-key:first;k-second-key:second');

  it('answers the label of the key presented', () => {
    expect(labelOf(keys, 'k-first-key')).toBe('first');
    expect(labelOf(keys, 'k-second-key')).toBe('second');
  });

  it.each(['', 'k-first-ke', 'k-first-keyy', 'K-FIRST-KEY', ' k-first-key', 'x'.repeat(10_000)])(
    'answers null for %j (any length: digests of equal size are compared, so nothing throws or short-cuts)',
    (presented) => {
      expect(labelOf(keys, presented)).toBeNull();
    },
  );
});
