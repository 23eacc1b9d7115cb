import type { LoggerService } from '@nestjs/common';
import { types } from 'node:util';
import type { LogLevel } from '../../config/app-config.js';
import { createLogger, type Logger } from './logger.js';

type NestLevel = 'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal';

const FROM_NEST: Record<NestLevel, LogLevel> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'debug',
};

/**
 * Nest's logger written through Ferry's one pino logger (logger.ts), so that Nest's lines and Fastify's share one
 * stream and one shape: `{"level","time","reqId"?,"context","msg",…}`. Give it the logger Fastify uses, or a level
 * (and, in tests, a function receiving each line without its newline) for a logger of its own.
 */
export class JsonLogger implements LoggerService {
  readonly pino: Logger;

  constructor(logger: Logger | LogLevel = 'info', write?: (line: string) => void) {
    this.pino =
      typeof logger === 'string'
        ? createLogger({
            level: logger,
            ...(write ? { stream: { write: (line: string) => write(line.replace(/\n$/, '')) } } : {}),
          })
        : logger;
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
    if (!this.pino.isLevelEnabled(level)) return;
    // Nest passes the context as the last string argument, and a stack before it for errors.
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const stack = nestLevel === 'error' && typeof rest[0] === 'string' ? (rest.shift() as string) : undefined;
    const extra = stack === undefined ? {} : { stack };
    if (types.isNativeError(message)) {
      this.pino[level]({ context, err: message, ...extra }, message.message);
    } else if (message !== null && typeof message === 'object') {
      this.pino[level]({ context, ...message, ...extra });
    } else {
      this.pino[level]({ context, ...extra }, String(message));
    }
  }
}
