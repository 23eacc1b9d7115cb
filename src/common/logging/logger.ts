import { type Logger, pino } from 'pino';
import { currentTraceIds } from '../../telemetry/tracing.js';
import type { LogLevel } from '../../config/app-config.js';
import { redactFields, secretMasker } from './redact.js';
import { currentRequestId } from './request-context.js';

export type { Logger } from 'pino';

export interface CreateLoggerOptions {
  readonly level: LogLevel;
  /** Where lines go (each ends with a newline); default: stdout, written synchronously (docs/logging.md). */
  readonly stream?: { write(line: string): void };
  /** The process's own secrets (keys, tokens): masked wherever they appear in a line (redact.ts). */
  readonly secrets?: readonly string[];
}

const { serializersSym } = pino.symbols;

/**
 * Ferry's one logger (docs/logging.md): Fastify writes its lines through it (`loggerInstance`) and Nest's through
 * JsonLogger, one JSON object per line, `{"level","time","reqId"?,"context"?,…,"msg"}`. Secrets are redacted before
 * pino sees a line; the id of the request being served is added to every line written while serving it.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const mask = secretMasker(options.secrets);
  return pino(
    {
      level: options.level,
      base: null,
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: { level: (label: string) => ({ level: label }) },
      // Errors are serialised (and masked) by redactFields before pino sees them.
      serializers: { err: (value: unknown) => value },
      mixin: () => {
        const reqId = currentRequestId();
        // With tracing on (src/telemetry), a line written inside a span carries its trace_id and span_id too.
        const trace = currentTraceIds();
        // pino merges the line's own fields over this object: an explicit `reqId` wins, and none is written twice.
        return { ...(reqId === undefined ? {} : { reqId }), ...trace };
      },
      hooks: {
        logMethod(this: Logger, args: unknown[], method: (...args: unknown[]) => void) {
          const [first, ...rest] = args;
          if (first !== null && typeof first === 'object') {
            const serializers = (this as unknown as Record<symbol, Record<string, unknown>>)[serializersSym];
            // Fastify's raw request and reply objects are left to its serializers, which pick a few fields.
            const keep = (key: string, value: unknown) =>
              key !== 'err' &&
              serializers[key] !== undefined &&
              value !== null &&
              typeof value === 'object' &&
              Object.getPrototypeOf(value) !== Object.prototype;
            const fields = redactFields(first, mask, keep);
            const safe = first instanceof Error ? { err: fields } : fields;
            method.apply(this, [safe, ...rest.map((item) => (typeof item === 'string' ? mask(item) : item))]);
          } else {
            method.apply(this, [typeof first === 'string' ? mask(first) : first, ...rest]);
          }
        },
      },
    },
    options.stream ?? pino.destination({ fd: 1, sync: true }),
  );
}
