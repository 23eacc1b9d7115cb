import { PreparedStatements } from '../../../src/database/prepared-statements.js';

describe(PreparedStatements.name, () => {
  it('names the same text the same way, and different texts differently', () => {
    const sut = new PreparedStatements('ferry_test', 10);
    const first = sut.nameOf('SELECT 1');
    expect(first).toMatch(/^ferry_test_[0-9a-f]{24}$/);
    expect(sut.nameOf('SELECT 1')).toBe(first);
    expect(sut.nameOf('SELECT 2')).not.toBe(first);
  });

  it('names no more than its capacity of texts: the rest run unprepared', () => {
    const sut = new PreparedStatements('ferry_test', 2);
    const named = ['SELECT 1', 'SELECT 2'].map((text) => sut.nameOf(text));
    expect(sut.nameOf('SELECT 3')).toBeUndefined();
    expect(['SELECT 1', 'SELECT 2'].map((text) => sut.nameOf(text))).toEqual(named);
  });
});
