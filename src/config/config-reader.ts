import { ConfigError } from './config.error.js';
import type { LoadedConfigFile } from './config-file.js';

/** Typed access to one resolved config file; errors name the variable a value came from. */
export class ConfigReader {
  constructor(private readonly file: LoadedConfigFile) {}

  integer(path: string, min: number, max: number): number {
    const raw = this.raw(path);
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !/^-?[0-9]+$/.test(text)) {
      throw this.error(path, `must be an integer (got ${JSON.stringify(raw)})`);
    }
    const value = Number(text);
    if (value < min || value > max)
      throw this.error(path, `must be between ${min} and ${max} (got ${value})`);
    return value;
  }

  /** A decimal number (`0.2`, `2`), as a JS number: for ratios, never for money. */
  decimal(path: string, min: number, max: number): number {
    const raw = this.raw(path);
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !/^-?[0-9]+(\.[0-9]+)?$/.test(text)) {
      throw this.error(path, `must be a number (got ${JSON.stringify(raw)})`);
    }
    const value = Number(text);
    if (value < min || value > max)
      throw this.error(path, `must be between ${min} and ${max} (got ${value})`);
    return value;
  }

  boolean(path: string): boolean {
    const raw = this.raw(path);
    if (raw === true || raw === 'true') return true;
    if (raw === false || raw === 'false') return false;
    throw this.error(path, `must be true or false (got ${JSON.stringify(raw)})`);
  }

  /** An ISO 8601 date-time with an explicit offset (`2026-11-24T00:00:00Z`). */
  instant(path: string): Date {
    const raw = this.raw(path);
    const date = typeof raw === 'string' ? new Date(raw) : undefined;
    if (!date || !/T.*(Z|[+-]\d\d:\d\d)$/.test(raw as string) || Number.isNaN(date.getTime())) {
      throw this.error(path, `must be an ISO 8601 date-time with a time zone (got ${JSON.stringify(raw)})`);
    }
    return date;
  }

  /** A string matching `pattern`. */
  text(path: string, pattern: RegExp, expected: string): string {
    const raw = this.raw(path);
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !pattern.test(text)) {
      throw this.error(path, `must be ${expected} (got ${JSON.stringify(raw)})`);
    }
    return text;
  }

  /** A string, or null when the key is absent or empty. */
  optionalText(path: string): string | null {
    let node: unknown = this.file.value;
    for (const key of path.split('.')) {
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
    return typeof node === 'string' && node !== '' ? node : null;
  }

  /** An object of strings matching `pattern` (keys may contain dots: `USDC.e`). */
  stringMap(path: string, pattern: RegExp, expected: string): Record<string, string> {
    const raw = this.raw(path);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw this.error(path, `must be an object (got ${JSON.stringify(raw)})`);
    }
    const map: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      const text = typeof value === 'number' ? String(value) : value;
      if (typeof text !== 'string' || !pattern.test(text)) {
        throw this.error(path, `"${key}" must be ${expected} (got ${JSON.stringify(value)})`);
      }
      map[key] = text;
    }
    return map;
  }

  /** Whether the key is present (any value but undefined). */
  has(path: string): boolean {
    return this.node(path) !== undefined;
  }

  /** The keys of an object. */
  keys(path: string): string[] {
    const raw = this.raw(path);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw this.error(path, `must be an object (got ${JSON.stringify(raw)})`);
    }
    return Object.keys(raw);
  }

  /** The length of an array. */
  length(path: string): number {
    const raw = this.raw(path);
    if (!Array.isArray(raw)) throw this.error(path, `must be an array (got ${JSON.stringify(raw)})`);
    return raw.length;
  }

  private raw(path: string): unknown {
    const node = this.node(path);
    if (node === undefined) throw this.error(path, 'is missing');
    return node;
  }

  private node(path: string): unknown {
    let node: unknown = this.file.value;
    for (const key of path.split('.')) {
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
    return node;
  }

  error(path: string, problem: string): ConfigError {
    const variable = this.file.origins.get(path);
    return variable
      ? new ConfigError(variable, `${problem} (${this.file.file}: ${path})`)
      : new ConfigError(`${this.file.file}: ${path}`, problem);
  }
}
