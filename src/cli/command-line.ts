import { parseArgs } from 'node:util';

/** One option of a command, declared once: parsed from it, shown in its `--help` and its usage errors. */
export interface OptionSpec {
  /** `string` takes a value (`--name value` or `--name=value`); `boolean` is a flag. */
  readonly type: 'string' | 'boolean';
  /** May be given more than once (its values are kept in order). */
  readonly multiple?: boolean;
  /** The value's placeholder in the help, e.g. `<perMinute>`. */
  readonly value?: string;
  /** What a missing value should have been ("needs an EVM address"); "a value" otherwise. */
  readonly needs?: string;
  /** One line for the help. */
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** A positional argument, for the help and the count check. */
export interface PositionalSpec {
  readonly name: string;
  readonly description: string;
  readonly optional?: boolean;
  /** Takes every remaining argument (at least one unless optional). */
  readonly variadic?: boolean;
}

export type OptionValue = string | boolean | string[] | undefined;

export interface ParsedCommandLine {
  readonly values: Readonly<Record<string, OptionValue>>;
  readonly positionals: readonly string[];
}

/** Every command takes `--help` (or `-h`); it is handled before anything else is checked. */
export const HELP_OPTION: OptionSpec = { type: 'boolean', description: 'show this help' };

/** The `--json` of the listing commands. */
export const JSON_OPTION: OptionSpec = {
  type: 'boolean',
  description: 'print machine-readable JSON (an array) instead of the table',
};

/**
 * Pure: `args` split by `node:util`'s parseArgs into the options of `specs` and positional arguments, or the problem:
 * an unknown option, a missing value (the next argument starting with `--` is not taken as one), a value given to a
 * flag, an option that is not `multiple` given twice. Positional counts are the caller's (see `positionalProblem`).
 */
export function parseCommandLine(specs: OptionSpecs, args: readonly string[]): ParsedCommandLine | string {
  const { tokens } = parseArgs({
    args: [...args],
    options: parseArgsOptions(specs),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Record<string, OptionValue> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const spec = Object.prototype.hasOwnProperty.call(specs, token.name) ? specs[token.name] : undefined;
    if (spec === undefined) return `Unknown option ${token.rawName}`;
    const flag = `--${token.name}`;
    let value: string | true = true;
    if (spec.type === 'boolean') {
      if (token.inlineValue) return `${flag} takes no value`;
    } else {
      // parseArgs takes the next argument whatever it is; an option name there means the value was forgotten.
      if (token.value === undefined || (!token.inlineValue && token.value.startsWith('--'))) {
        return `${flag} needs ${spec.needs ?? 'a value'}`;
      }
      value = token.value;
    }
    const seen = values[token.name];
    if (seen !== undefined && !spec.multiple) return `${flag} is given twice`;
    values[token.name] = spec.multiple ? [...((seen as string[] | undefined) ?? []), String(value)] : value;
  }
  return { values, positionals };
}

/** Whether `args` ask for help (`--help` or `-h`, before a `--`), whatever else is wrong with them. */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** The problem with the number of positional arguments ('' when the count is wrong), or undefined. */
export function positionalProblem(
  positionals: readonly PositionalSpec[],
  given: readonly string[],
): string | undefined {
  const required = positionals.filter((positional) => !positional.optional).length;
  const unbounded = positionals.some((positional) => positional.variadic);
  if (given.length < required) return '';
  if (!unbounded && given.length > positionals.length) return '';
  return undefined;
}

/** The string value of an option (undefined when absent). */
export const stringOption = (parsed: ParsedCommandLine, name: string): string | undefined => {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
};

/** Every value of a `multiple` option, in order. */
export const stringOptions = (parsed: ParsedCommandLine, name: string): string[] => {
  const value = parsed.values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
};

export const flagOption = (parsed: ParsedCommandLine, name: string): boolean => parsed.values[name] === true;

/** `--name <value>` as the help and the one-line summary show it. */
export function optionSynopsis(name: string, spec: OptionSpec): string {
  const short = name === 'help' ? '-h, ' : '';
  return `${short}--${name}${spec.type === 'string' ? ` ${spec.value ?? '<value>'}` : ''}`;
}

/** One line listing the options, for usage errors: `Options: --label <label>, --sponsorship (repeatable …)`. */
export function optionsSummary(specs: OptionSpecs): string {
  return `Options: ${Object.entries(specs)
    .map(([name, spec]) => `${optionSynopsis(name, spec)}${spec.multiple ? ' (repeatable)' : ''}`)
    .join(', ')}`;
}

function parseArgsOptions(
  specs: OptionSpecs,
): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const [name, spec] of Object.entries(specs)) options[name] = { type: spec.type };
  return options;
}
