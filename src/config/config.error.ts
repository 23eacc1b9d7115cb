/** A configuration value is missing or malformed; start-up stops with this one line. */
export class ConfigError extends Error {
  constructor(
    /** The environment variable (or config-file path) the operator must fix. */
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}
