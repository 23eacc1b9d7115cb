import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

/** The OpenAPI document of the running app; `docs/openapi.json` is this, written by `npm run openapi`. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Ferry API')
    .setDescription(
      'Quotes, execution and tracking of cross-chain swaps, bridges and calls. Errors answer ' +
        '`{message, errorCode, errorData?}`; the codes are listed in docs/errors.md.',
    )
    .setVersion('0.1.0')
    .addApiKey({ type: 'apiKey', name: 'x-api-key', in: 'header' }, 'apiKey')
    .build();
  return SwaggerModule.createDocument(app, config);
}

export function setupOpenApi(app: INestApplication): void {
  SwaggerModule.setup('documentation', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'documentation/json',
  });
}
