import type { DynamicModule, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { AppModule } from '../app.module.js';
import type { AppConfig } from '../config/app-config.js';
import type { Clock } from '../common/clock.js';
import { HttpErrorFilter } from '../common/http/http-error.filter.js';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { JsonLogger } from '../common/logging/json-logger.js';
import { setupOpenApi } from './openapi.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export interface CreateAppOptions {
  readonly logger?: LoggerService | false;
  /** Modules mounted beside the app's own (tests mount fixtures this way). */
  readonly extraModules?: readonly (Type | DynamicModule)[];
  /** The clock every module decides with (default: the system clock). */
  readonly clock?: Clock;
}

/** Builds the API application (not yet listening): Fastify, the shared error and validation conventions, OpenAPI. */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    // A caller's x-request-id is kept when it is sane, so one id follows a request across services.
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const header = request.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    logger: {
      level: config.logLevel,
      formatters: { level: (label: string) => ({ level: label }) },
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.forRoot(config, options.extraModules, options.clock),
    adapter,
    {
      logger: options.logger ?? new JsonLogger(config.logLevel),
      bufferLogs: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
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
