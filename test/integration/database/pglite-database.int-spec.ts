import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { ConfigError } from '../../../src/config/config.error.js';
import { runMigrations } from '../../../src/database/migrate.js';
import { PgliteDatabase, pgliteVersion } from '../../../src/database/pglite-database.js';

describe(PgliteDatabase.name, () => {
  it('keeps its data in the directory across reopenings, stamped with the PGlite version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-pglite-'));
    const first = await PgliteDatabase.open(dir);
    await runMigrations(first);
    await first.query(`INSERT INTO event_streams (stream_id, revision) VALUES ('kept', 7)`);
    await first.close();
    expect(JSON.parse(readFileSync(join(dir, 'FERRY_PGLITE.json'), 'utf8'))).toEqual({
      pgliteVersion: pgliteVersion(),
      postgresMajor: expect.stringMatching(/^\d+$/),
    });
    expect(existsSync(join(dir, 'FERRY_PGLITE.lock'))).toBe(false);

    const second = await PgliteDatabase.open(dir);
    expect(await runMigrations(second)).toEqual([]);
    expect((await second.query('SELECT revision FROM event_streams')).rows).toEqual([{ revision: 7n }]);
    await second.close();
  });

  it('refuses, with a clear message, a directory written by an incompatible PGlite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-pglite-'));
    await (await PgliteDatabase.open(dir)).close();
    writeFileSync(
      join(dir, 'FERRY_PGLITE.json'),
      JSON.stringify({ pgliteVersion: '0.2.17', postgresMajor: '16' }),
    );
    const opening = PgliteDatabase.open(dir);
    await expect(opening).rejects.toBeInstanceOf(ConfigError);
    await expect(opening).rejects.toThrow(
      /was written by PGlite 0\.2\.17 \(PostgreSQL 16\); this build runs PGlite/,
    );
  });

  it('refuses a directory another live process holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-pglite-'));
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(join(dir, 'FERRY_PGLITE.lock'), String(holder.pid));
      await expect(PgliteDatabase.open(dir)).rejects.toThrow(`is in use by process ${holder.pid}`);
    } finally {
      holder.kill();
    }
  });

  it('takes over the lock of a process that is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-pglite-'));
    writeFileSync(join(dir, 'FERRY_PGLITE.lock'), '999999');
    const db = await PgliteDatabase.open(dir);
    expect(readFileSync(join(dir, 'FERRY_PGLITE.lock'), 'utf8').split('\n')[0]).toBe(String(process.pid));
    await db.close();
  });

  it('rolls a failed transaction back and keeps serving', async () => {
    const db = await PgliteDatabase.open('memory://');
    await runMigrations(db);
    await expect(
      db.transaction(async (tx) => {
        await tx.query(`INSERT INTO event_streams (stream_id, revision) VALUES ('gone', 0)`);
        await tx.query('SELECT no_such_column FROM event_streams');
      }),
    ).rejects.toThrow();
    await expect(db.query('SELECT nonsense FROM nowhere')).rejects.toThrow();
    expect((await db.query('SELECT count(*)::int AS n FROM event_streams')).rows).toEqual([{ n: 0 }]);
    await db.close();
  });
});

describe('memory:// data directories', () => {
  it('open in memory and write nothing to the filesystem', async () => {
    const cwd = process.cwd();
    const dir = mkdtempSync(join(tmpdir(), 'ferry-cwd-'));
    process.chdir(dir);
    try {
      const db = await PgliteDatabase.open('memory://no-files');
      await runMigrations(db);
      await db.close();
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      process.chdir(cwd);
    }
  });

  it('refuses a memory:// URL that was resolved into a path', async () => {
    await expect(PgliteDatabase.open(join(tmpdir(), 'memory:', 'x'))).rejects.toThrow(
      /mangled memory:\/\/ URL/,
    );
  });
});
