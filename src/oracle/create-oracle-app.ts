import { type LoggerService, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { HttpErrorFilter } from '../common/http/http-error.filter.js';
import { parseJsonBody } from '../common/http/json-body.js';
import { answerRouteNotFound } from '../common/http/route-not-found.js';
import { createValidationPipe } from '../common/http/validation.pipe.js';
import { JsonLogger } from '../common/logging/json-logger.js';
import { createLogger } from '../common/logging/logger.js';
import { secretMasker, secretsOf } from '../common/logging/redact.js';
import { maskSpanTextWith } from '../telemetry/tracing.js';
import { installRequestContext } from '../common/logging/request-context.js';
import type { OracleConfig } from './config/oracle-config.js';
import { OracleModule } from './oracle.module.js';
import type { OracleSigner } from './signer/oracle-signer.js';

class OracleFastifyAdapter extends FastifyAdapter {
  override setNotFoundHandler(): ReturnType<FastifyAdapter['setNotFoundHandler']> {
    return super.setNotFoundHandler(answerRouteNotFound);
  }
}

@Module({})
class OracleAppModule {
  static forRoot(config: OracleConfig, signer: OracleSigner): DynamicModule {
    return { module: OracleAppModule, imports: [OracleModule.forRoot(config, signer)] };
  }
}

export interface CreateOracleAppOptions {
  readonly logger?: LoggerService | false;
}

/**
 * The oracle alone (`npm run start:oracle`): Fastify with Ferry's error body, JSON limits and validation, and the
 * interactive OpenAPI page at `/documentation` (JSON at `/documentation/json`). Not yet listening.
 */
export async function createOracleApp(
  config: OracleConfig,
  signer: OracleSigner,
  options: CreateOracleAppOptions = {},
): Promise<NestFastifyApplication> {
  const adapter = new OracleFastifyAdapter({ bodyLimit: 64 * 1024 });
  // Lines logged while serving a request carry its id (docs/logging.md).
  installRequestContext(adapter.getInstance());
  const level = process.env.LOG_LEVEL === 'debug' ? 'debug' : 'info';
  // Spans record failures masked as log lines are (docs/operations.md, "Traces").
  maskSpanTextWith(secretMasker(secretsOf(config)));
  const app = await NestFactory.create<NestFastifyApplication>(
    OracleAppModule.forRoot(config, signer),
    adapter,
    {
      logger: options.logger ?? new JsonLogger(createLogger({ level, secrets: secretsOf(config) })),
      bodyParser: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeContentTypeParser(['application/json', 'text/plain']);
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Ferry attestation oracle')
      .setDescription(
        'Reads deposits, withdrawals, fills and refunds from final blocks and signs them as EIP-712 messages ' +
          '(docs/oracle.md). Errors answer `{message, errorCode, statusCode, errorData?}`.',
      )
      .setVersion('1')
      .addApiKey({ type: 'apiKey', name: 'x-api-key', in: 'header' }, 'apiKey')
      .build(),
  );
  SwaggerModule.setup('documentation', app, document, { jsonDocumentUrl: 'documentation/json' });
  return app;
}
