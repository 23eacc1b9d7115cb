import { ConfigError } from './config.error.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Where a resolved config value came from, so a validation error can name the variable to fix. */
export type Origins = Map<string, string>;

const PLACEHOLDER = /\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${VAR}` and `${VAR:-default}` in every string of a parsed JSON document.
 * A string that is exactly one placeholder takes the variable's text; validation converts types later.
 * A placeholder without default whose variable is unset stops start-up naming the variable.
 *
 * @example resolvePlaceholders({ port: '${PORT:-3000}' }, { PORT: '8080' }) // { port: '8080' }
 */
export function resolvePlaceholders(
  value: unknown,
  env: Env,
  origins: Origins = new Map(),
  path = '',
): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (_match, name: string, fallback: string | undefined) => {
      const fromEnv = env[name];
      if (fromEnv !== undefined && fromEnv !== '') {
        origins.set(path, name);
        return fromEnv;
      }
      if (fallback !== undefined) return fallback;
      throw new ConfigError(name, `is required (referenced by ${path || 'a config file'})`);
    });
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => resolvePlaceholders(item, env, origins, `${path}[${index}]`));
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        resolvePlaceholders(item, env, origins, path ? `${path}.${key}` : key),
      ]),
    );
  }
  return value;
}
