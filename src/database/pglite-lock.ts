import { existsSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/config.error.js';

export const LOCK_FILE = 'FERRY_PGLITE.lock';

/** How often the holder touches its lock file. */
export const LOCK_HEARTBEAT_MS = 10_000;
/** How long after its last touch a lock of another pid namespace counts as left behind (its holder is gone). */
export const LOCK_STALE_MS = 60_000;

/** A data directory held by this process until `release()`. */
export interface DirectoryLock {
  release(): void;
}

/**
 * Embedded storage serves one process per directory (PGlite is one connection, and two processes on one directory
 * corrupt it): `FERRY_PGLITE.lock` holds the owner's pid and, on Linux, its pid namespace (`/proc/self/ns/pid`). In
 * one namespace a lock is taken over when its process is gone (or is this one: a pid reused after a restart). A
 * process of another namespace (another container on a shared volume, where both may be pid 1) cannot be checked, so
 * its lock holds while its holder keeps touching it, and is taken over `LOCK_STALE_MS` after the last touch (a
 * container that stopped without releasing it).
 */
export function takeLock(dataDir: string, now: () => number = Date.now): DirectoryLock {
  const file = join(dataDir, LOCK_FILE);
  const namespace = pidNamespace();
  if (existsSync(file)) {
    const holder = readHolder(file);
    const foreign = holder.namespace !== null && namespace !== null && holder.namespace !== namespace;
    if (foreign) {
      if (now() - statSync(file).mtimeMs < LOCK_STALE_MS) {
        throw new ConfigError(
          'DATA_DIR',
          `(${dataDir}) is in use by process ${holder.pid} of another pid namespace (another container on this ` +
            'volume); embedded storage serves one process. Stop it, or set DATABASE_URL to share a PostgreSQL ' +
            `server. A lock its holder stopped touching is taken over after ${LOCK_STALE_MS / 1000} s.`,
        );
      }
    } else if (Number.isInteger(holder.pid) && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new ConfigError(
        'DATA_DIR',
        `(${dataDir}) is in use by process ${holder.pid}; embedded storage serves one process. ` +
          'Stop it, or set DATABASE_URL to share a PostgreSQL server.',
      );
    }
  }
  writeFileSync(file, namespace ? `${process.pid}\n${namespace}\n` : String(process.pid));
  const heartbeat = setInterval(() => {
    try {
      const at = new Date();
      utimesSync(file, at, at);
    } catch {
      // Removed or unreadable: the next open decides.
    }
  }, LOCK_HEARTBEAT_MS);
  heartbeat.unref();
  return {
    release() {
      clearInterval(heartbeat);
      // Only our own lock: one another process took over (ours went stale) is theirs.
      if (!existsSync(file)) return;
      const holder = readHolder(file);
      if (holder.pid === process.pid && holder.namespace === namespace) rmSync(file, { force: true });
    },
  };
}

function readHolder(file: string): { pid: number; namespace: string | null } {
  const [pid, namespace] = readFileSync(file, 'utf8').split('\n');
  return { pid: Number(pid.trim()), namespace: namespace?.trim() || null };
}

function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
