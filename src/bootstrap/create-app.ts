import type { DynamicModule, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { randomUUID } from 'node:crypto';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import type { Clock } from '../common/clock.js';
import { frameworkErrorBody, HttpErrorFilter } from '../common/http/http-error.filter.js';
import { parseJsonBody } from '../common/http/json-body.js';
import type { ErrorBody } from '../common/http/api-error.js';
import { answerRouteNotFound } from '../common/http/route-not-found.js';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { JsonLogger } from '../common/logging/json-logger.js';
import { createLogger } from '../common/logging/logger.js';
import { secretMasker, secretsOf } from '../common/logging/redact.js';
import { installRequestContext } from '../common/logging/request-context.js';
import { installRequestLog } from '../common/logging/request-log.js';
import { installHttpMetrics } from '../metrics/http-metrics.js';
import { flushTraces, maskSpanTextWith, tracingEnabled } from '../telemetry/tracing.js';
import { setupOpenApi } from './openapi.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export interface CreateAppOptions {
  readonly logger?: LoggerService | false;
  /** Modules mounted beside the app's own (tests mount fixtures this way). */
  readonly extraModules?: readonly (Type | DynamicModule)[];
  /** The clock every module decides with (default: the system clock). */
  readonly clock?: Clock;
  /** Where log lines go, Fastify's and Nest's (default: stdout); tests read the logs this way. */
  readonly logStream?: { write(line: string): void };
}

/** Fastify as Nest drives it, except that unknown routes are answered without throwing (route-not-found.ts). */
class FerryFastifyAdapter extends FastifyAdapter {
  /** Set when shutdown begins (SIGTERM), before the workers drain: from then on new requests are turned away. */
  closing = false;

  override setNotFoundHandler(): ReturnType<FastifyAdapter['setNotFoundHandler']> {
    return super.setNotFoundHandler(answerRouteNotFound);
  }

  override beforeClose(): void {
    this.closing = true;
    super.beforeClose();
  }
}

/** Builds the API application (not yet listening): Fastify, the shared error and validation conventions, OpenAPI. */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  // One logger for Fastify and Nest (docs/logging.md); the process's own keys and tokens are masked in every line,
  // and in what spans record of errors.
  const secrets = secretsOf(config);
  const logger = createLogger({
    level: config.logLevel,
    secrets,
    ...(options.logStream ? { stream: options.logStream } : {}),
  });
  maskSpanTextWith(secretMasker(secrets));
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
    loggerInstance: logger,
    // request.log is the logger itself: the request id comes from the request's store (request-context.ts), so no
    // child logger is built per request and no line carries the id twice.
    childLoggerFactory: (parent: FastifyBaseLogger) => parent,
  });
  // First of all hooks, so that everything after it runs inside the request's store.
  installRequestContext(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, options.extraModules, options.clock),
    adapter,
    {
      logger: options.logger ?? new JsonLogger(logger),
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
  // Shutdown (docs/operations.md): the workers drain before Fastify closes its listener, which can take a webhook
  // timeout; meanwhile new requests get 503 with `Connection: close` (a load balancer retries them on another
  // instance) and requests already in flight are answered before the database closes.
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!adapter.closing) return done();
    void reply
      .code(503)
      .header('connection', 'close')
      .header('retry-after', '1')
      .send({
        message: 'This instance is shutting down; retry the request',
        errorCode: 'SERVICE_UNAVAILABLE',
        requestId: request.id,
      } satisfies ErrorBody);
  });
  installRequestLog(fastify, config.http.requestSummaryIntervalMs);
  if (tracingEnabled()) fastify.addHook('onClose', flushTraces);
  if (config.metricsEnabled) installHttpMetrics(fastify);
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
  // After the hooks, exit 0 rather than re-raise the signal: a clean stop is a success for supervisors.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });
  setupOpenApi(app);
  return app;
}
