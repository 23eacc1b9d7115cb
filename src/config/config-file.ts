import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config.error.js';
import { type Env, type Origins, resolvePlaceholders } from './resolve-placeholders.js';

export interface LoadedConfigFile {
  readonly file: string;
  readonly value: unknown;
  readonly origins: Origins;
}

/** Reads `configs/<name>.<environment>.json` and resolves its `${VAR}` placeholders from `env`. */
export function loadConfigFile(
  configDir: string,
  name: string,
  environment: string,
  env: Env,
): LoadedConfigFile {
  const file = join(configDir, `${name}.${environment}.json`);
  if (!existsSync(file)) {
    throw new ConfigError('ENVIRONMENT', `is "${environment}" but ${file} does not exist`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(file, `is not valid JSON (${(error as Error).message})`);
  }
  const origins: Origins = new Map();
  return { file, value: resolvePlaceholders(parsed, env, origins), origins };
}
