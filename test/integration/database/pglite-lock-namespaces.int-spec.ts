import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_STALE_MS, takeLock } from '../../../src/database/pglite-lock.js';

/**
 * Embedded storage serves one process per DATA_DIR, enforced by `FERRY_PGLITE.lock` holding the owner's pid. Two
 * containers sharing the data volume (the image keeps embedded storage in /app/data; `docker compose run api node
 * dist/src/cli/main.js …` next to a running API) each see their own pid namespace: both are pid 1, so the second
 * reads "1" from the lock, takes it for its own and opens the directory while the first still has it open. Two
 * PGlite instances on one directory corrupt it, and the second removes the first's lock when it closes.
 *
 * Reproduced with `unshare --pid` (a new pid namespace, as a container has); skipped where that is not permitted.
 */
const unshareWorks =
  process.platform === 'linux' &&
  spawnSync('unshare', ['-p', '-f', '--mount-proc', 'true'], { stdio: 'ignore' }).status === 0;
const maybe = unshareWorks ? describe : describe.skip;

/** Opens the directory with the built PgliteDatabase (as the API and the CLI do), then holds it until killed. */
const OPEN_AND_HOLD = `
  const { PgliteDatabase } = await import(process.cwd() + '/dist/src/database/pglite-database.js');
  try {
    const db = await PgliteDatabase.open(process.env.DATA_DIR);
    await db.query('SELECT 1');
    process.stdout.write('OPENED\\n');
    if (process.env.HOLD === '1') setInterval(() => {}, 1000);
    else await db.close();
  } catch (error) {
    process.stdout.write('REFUSED ' + error.message + '\\n');
  }
`;

maybe('embedded storage lock across pid namespaces (containers sharing DATA_DIR)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-pglite-ns-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a second process in another pid namespace is refused while the first holds the directory', async () => {
    const inNamespace = (hold: boolean) =>
      spawnUnshared(['--input-type=module', '-e', OPEN_AND_HOLD], { DATA_DIR: dir, HOLD: hold ? '1' : '0' });

    const holder = inNamespace(true);
    try {
      const deadline = Date.now() + 30_000;
      while (!holder.output().includes('OPENED') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(holder.output()).toContain('OPENED');

      const second = inNamespace(false);
      await Promise.race([second.exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
      expect(second.output()).toMatch(/REFUSED .*is in use by process/);
      // And the holder's lock is still there.
      expect(existsSync(join(dir, 'FERRY_PGLITE.lock'))).toBe(true);
    } finally {
      holder.kill();
      await holder.exited;
    }
  }, 90_000);
});

/** `node <args>` as pid 1 of a new pid namespace (what a container's entry point is). */
function spawnUnshared(args: readonly string[], env: Record<string, string>) {
  const child = spawn('unshare', ['-p', '-f', '--mount-proc', '--kill-child', process.execPath, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { output: () => out, exited, kill: () => child.kill('SIGKILL') };
}

/** A lock written by a process of another pid namespace (a container), without starting one. */
describe('embedded storage lock of another pid namespace', () => {
  let dir: string;
  const lock = () => join(dir, 'FERRY_PGLITE.lock');
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-pglite-foreign-'));
    writeFileSync(lock(), '1\npid:[1]\n');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const linux = process.platform === 'linux' ? it : it.skip;

  linux(
    'holds while its holder keeps touching it: its process cannot be looked at from this namespace',
    async () => {
      const now = () => statSync(lock()).mtimeMs + LOCK_STALE_MS - 1_000;
      expect(() => takeLock(dir, now)).toThrow(/in use by process 1 of another pid namespace/);
      expect(readFileSync(lock(), 'utf8')).toBe('1\npid:[1]\n');
    },
  );

  linux('is taken over once its holder stopped touching it (a container that is gone)', async () => {
    const now = () => statSync(lock()).mtimeMs + LOCK_STALE_MS + 1_000;
    const taken = takeLock(dir, now);
    expect(readFileSync(lock(), 'utf8').split('\n')[0]).toBe(String(process.pid));
    taken.release();
    expect(existsSync(lock())).toBe(false);
  });

  linux('is not removed by a process whose own lock was taken over', async () => {
    const taken = takeLock(dir, () => Date.now() + LOCK_STALE_MS + 1_000);
    writeFileSync(lock(), '1\npid:[2]\n');
    taken.release();
    expect(readFileSync(lock(), 'utf8')).toBe('1\npid:[2]\n');
  });
});
