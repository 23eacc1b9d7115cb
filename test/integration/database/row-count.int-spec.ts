import { type MigratedDatabase, migratedDatabase } from '../../support/postgres.js';

/**
 * `rowCount` means the same on both engines: the rows a SELECT or RETURNING gave, else the rows a write touched.
 * Fencing guards read it (`SELECT … FOR UPDATE` inside a transaction); PGlite once answered 0 for every SELECT, so on
 * embedded storage (`npm start`, the demo) the solver never sent a fill.
 */
describe.each(['postgres', 'pglite'] as const)('rowCount on %s', (kind) => {
  let sut: MigratedDatabase;

  beforeAll(async () => {
    sut = await migratedDatabase(kind, 2);
    await sut.db.query('CREATE TABLE row_count_probe (id int PRIMARY KEY, v text)');
    await sut.db.query("INSERT INTO row_count_probe VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  });
  afterAll(() => sut?.close());

  it('counts the rows of a SELECT, in and out of a transaction, with FOR UPDATE', async () => {
    expect((await sut.db.query('SELECT 1 FROM row_count_probe WHERE id < 3')).rowCount).toBe(2);
    const inside = await sut.db.transaction(async (tx) => [
      (await tx.query('SELECT 1 FROM row_count_probe WHERE id = $1 FOR UPDATE', [1])).rowCount,
      (await tx.query('SELECT 1 FROM row_count_probe WHERE id = $1 FOR UPDATE', [9])).rowCount,
    ]);
    expect(inside).toEqual([1, 0]);
  });

  it('counts the rows a write touched, with and without RETURNING', async () => {
    expect((await sut.db.query("UPDATE row_count_probe SET v = 'x' WHERE id >= 2")).rowCount).toBe(2);
    expect(
      (await sut.db.query("UPDATE row_count_probe SET v = 'y' WHERE id = 1 RETURNING id")).rowCount,
    ).toBe(1);
    expect((await sut.db.query('DELETE FROM row_count_probe WHERE id = 42')).rowCount).toBe(0);
  });
});
