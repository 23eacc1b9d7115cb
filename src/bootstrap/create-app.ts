import type { DynamicModule, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type FastifyError, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import type { Clock } from '../common/clock.js';
import { frameworkErrorBody, HttpErrorFilter } from '../common/http/http-error.filter.js';
import { parseJsonBody } from '../common/http/json-body.js';
import { answerRouteNotFound } from '../common/http/route-not-found.js';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { JsonLogger } from '../common/logging/json-logger.js';
import { installRequestLog } from '../common/logging/request-log.js';
import { installHttpMetrics } from '../metrics/http-metrics.js';
import { currentTraceIds, flushTraces, tracingEnabled } from '../telemetry/tracing.js';
import { setupOpenApi } from './openapi.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export interface CreateAppOptions {
  readonly logger?: LoggerService | false;
  /** Modules mounted beside the app's own (tests mount fixtures this way). */
  readonly extraModules?: readonly (Type | DynamicModule)[];
  /** The clock every module decides with (default: the system clock). */
  readonly clock?: Clock;
  /** Where Fastify's log lines go (default: stdout); tests read the request log this way. */
  readonly logStream?: { write(line: string): void };
}

/** Fastify as Nest drives it, except that unknown routes are answered without throwing (route-not-found.ts). */
class FerryFastifyAdapter extends FastifyAdapter {
  override setNotFoundHandler(): ReturnType<FastifyAdapter['setNotFoundHandler']> {
    return super.setNotFoundHandler(answerRouteNotFound);
  }
}

/** Builds the API application (not yet listening): Fastify, the shared error and validation conventions, OpenAPI. */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FerryFastifyAdapter({
    // Behind a load balancer (`TRUST_PROXY`): request.ip is the client its X-Forwarded-For names (rate limits, logs).
    trustProxy:
      typeof config.http.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.http.trustProxy)
        : config.http.trustProxy,
    bodyLimit: config.http.bodyLimitBytes,
    // Errors Fastify raises before any route (a malformed URL, a too long parameter) answer the spec's body too.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const { status, body } = frameworkErrorBody(error);
      void reply
        .code(status)
        .header('content-type', 'application/json; charset=utf-8')
        .header('x-request-id', request.id)
        .send({ ...body, statusCode: status });
    },
    // A caller's x-request-id is kept when it is sane, so one id follows a request across services.
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    // Per-request lines are request-log.ts's (debug, plus an info summary): see docs/logging.md.
    logController: new LogController({ disableRequestLogging: true }),
    logger: {
      level: config.logLevel,
      formatters: { level: (label: string) => ({ level: label }) },
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      // With tracing on, a line written inside a span carries its trace_id and span_id next to reqId.
      ...(tracingEnabled() ? { mixin: () => currentTraceIds() ?? {} } : {}),
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, options.extraModules, options.clock),
    adapter,
    {
      logger: options.logger ?? new JsonLogger(config.logLevel),
      bufferLogs: false,
      // Ferry registers its own JSON parser (depth and width limits) below.
      bodyParser: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  // JSON bodies are parsed once and checked for depth and width before validation walks them (json-body.ts); any
  // other body (text/plain included) is 415 UNSUPPORTED_MEDIA_TYPE.
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installRequestLog(fastify, config.http.requestSummaryIntervalMs);
  if (tracingEnabled()) fastify.addHook('onClose', flushTraces);
  installHttpMetrics(fastify);
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableCors({
    origin: true,
    allowedHeaders: [
      'content-type',
      'relay-sdk-version',
      'relay-kit-ui-version',
      'x-api-key',
      'x-request-id',
    ],
    exposedHeaders: [
      'x-request-id',
      'retry-after',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'deprecation',
      'sunset',
      'link',
    ],
  });
  app.enableShutdownHooks();
  setupOpenApi(app);
  return app;
}
