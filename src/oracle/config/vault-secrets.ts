import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../../config/resolve-placeholders.js';

const VARIABLE = /^[A-Z_][A-Z0-9_]*$/;
const ASSIGNMENT = /^(?:export\s+)?([A-Z_][A-Z0-9_]*)=(.*)$/;

/**
 * The secrets a secret manager's agent wrote into `dir` (`/vault/secrets` in the container), as variables. A file
 * named like a variable (`ECDSA_PRIVATE_KEY`) holds its value; any other file holds `NAME=value` lines (`export` and
 * quotes allowed, `#` comments skipped), as agent templates write them. Variables already set in `env` win, so an
 * operator can always override a secret explicitly. A missing directory is no secrets.
 */
export function loadVaultSecrets(dir: string, env: Env): Record<string, string> {
  if (!existsSync(dir)) return {};
  const found: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const file = join(dir, name);
    if (!statSync(file).isFile()) continue;
    const text = readFileSync(file, 'utf8');
    if (VARIABLE.test(name)) {
      found[name] = text.trim();
      continue;
    }
    for (const line of text.split('\n')) {
      const match = ASSIGNMENT.exec(line.trim());
      if (match) found[match[1]] = unquote(match[2].trim());
    }
  }
  return Object.fromEntries(Object.entries(found).filter(([name]) => !env[name]));
}

function unquote(value: string): string {
  const quoted = /^(['"])(.*)\1$/.exec(value);
  return quoted ? quoted[2] : value;
}
