import type { LoggerService } from '@nestjs/common';
import { types } from 'node:util';
import { LOG_LEVELS, type LogLevel } from '../../config/app-config.js';
import { currentTraceIds } from '../../telemetry/tracing.js';

type NestLevel = 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';

const FROM_NEST: Record<NestLevel, LogLevel> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'debug',
};

/** Keys whose values never reach a log line, wherever they sit in a logged object. */
const SECRET_KEYS =
  /^(x-api-key|authorization|apiKey|api_key|password|secret|privateKey|ECDSA_PRIVATE_KEY|secretAccessKey|sessionToken|AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|x-amz-security-token)$/i;

/** One JSON object per line on stdout (stderr for errors), in the same shape as Fastify's request logs. */
export class JsonLogger implements LoggerService {
  private readonly threshold: number;

  constructor(
    level: LogLevel = 'info',
    private readonly write: (line: string, level: LogLevel) => void = defaultWrite,
  ) {
    this.threshold = LOG_LEVELS.indexOf(level);
  }

  log(message: unknown, ...rest: unknown[]) {
    this.emit('log', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.emit('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.emit('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.emit('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.emit('verbose', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.emit('fatal', message, rest);
  }

  private emit(nestLevel: NestLevel, message: unknown, rest: unknown[]) {
    const level = FROM_NEST[nestLevel];
    if (LOG_LEVELS.indexOf(level) > this.threshold) return;
    // Nest passes the context as the last string argument, and a stack before it for errors.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const stack = nestLevel === 'error' && typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
    const fields = types.isNativeError(message)
      ? {
          msg: message.message,
          err: { name: message.name, code: (message as { code?: unknown }).code, stack: message.stack },
        }
      : message !== null && typeof message === 'object'
        ? redact(message)
        : { msg: String(message) };
    const line = JSON.stringify(
      {
        level,
        time: new Date().toISOString(),
        context,
        ...currentTraceIds(),
        ...fields,
        ...(stack ? { stack } : {}),
      },
      jsonSafe,
    );
    this.write(line, level);
  }
}

function defaultWrite(line: string, level: LogLevel) {
  (level === 'error' || level === 'fatal' ? process.stderr : process.stdout).write(`${line}\n`);
}

function jsonSafe(_key: string, value: unknown) {
  return typeof value === 'bigint' ? value.toString() : value;
}

export function redact(value: object): Record<string, unknown> {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object' || node instanceof Date) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, item]) => [key, SECRET_KEYS.test(key) ? '[redacted]' : walk(item)]),
    );
  };
  return walk(value) as Record<string, unknown>;
}
