import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { componentSchemas, OPERATION_IDS, SUCCESS_SCHEMAS } from './openapi-schemas.js';

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

/**
 * The OpenAPI document of the running app; `docs/openapi.json` is this, written by `npm run openapi`. A client can be
 * generated from it: every operation has a readable id, every response a schema (errors share `ErrorResponse`, whose
 * `errorCode` enumerates the registry), the admin token and API key are security schemes, and `servers` names the
 * API's root.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Ferry API')
    .setDescription(
      'Quotes, execution and tracking of cross-chain swaps, bridges and calls. Errors answer ' +
        '`{message, errorCode, statusCode, errorData?}` (`ErrorResponse`); the codes are listed in docs/errors.md.',
    )
    .setVersion('0.1.0')
    .addServer('/', 'This Ferry (paths are relative to where it is served)')
    .addApiKey({ type: 'apiKey', name: 'x-api-key', in: 'header' }, 'apiKey')
    .addApiKey({ type: 'apiKey', name: 'x-admin-token', in: 'header' }, 'adminToken')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controller, method) =>
      OPERATION_IDS[`${controller}_${method}`] ?? `${controller}_${method}`,
  });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...componentSchemas() } as never,
  };
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, value] of Object.entries(methods as Record<string, Operation>)) {
      describeResponses(`${method.toUpperCase()} ${path}`, value);
      if (path.startsWith('/admin/')) value.security = [{ adminToken: [] }];
      if (path === '/requests/v2') value.security = [{ apiKey: [] }];
      // A key is optional on quotes (it names the integrator and unlocks sponsorship).
      if (path === '/quote/v2') value.security = [{}, { apiKey: [] }];
    }
  }
  return document;
}

/** Success schemas the decorators lack, and the shared error schema on every 4xx and 5xx. */
function describeResponses(route: string, operation: Operation): void {
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const code = Number(status);
    const success = SUCCESS_SCHEMAS[route];
    if (code < 300 && success && !response.content?.['application/json']?.schema) {
      response.content = { 'application/json': { schema: { $ref: `#/components/schemas/${success}` } } };
    }
    if (code >= 400) {
      // /health answers its report with 503 too: a readiness probe, not an error body.
      const schema = route === 'GET /health' ? 'HealthResponse' : 'ErrorResponse';
      response.content = { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } };
    }
  }
}

export function setupOpenApi(app: INestApplication): void {
  SwaggerModule.setup('documentation', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'documentation/json',
  });
}
