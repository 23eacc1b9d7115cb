import {
  applyDecorators,
  type CanActivate,
  type ExecutionContext,
  Inject,
  Injectable,
  UseGuards,
} from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/http/api-error.js';
import { matchesSecret, secretDigest } from '../../common/secret-digest.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.module.js';

export const ADMIN_TOKEN_HEADER = 'x-admin-token';
export const ADMIN_API_DISABLED_MESSAGE = 'The admin API is disabled: set ADMIN_API_TOKEN';

/**
 * Operator routes (`/admin/...`): the `x-admin-token` header must equal `ADMIN_API_TOKEN`, compared in constant time
 * (on SHA-256 digests, so neither the length nor a prefix of the token leaks through timing). Without a configured
 * token the admin API is off: 403 FORBIDDEN on every admin route. A missing or wrong token: 401 UNAUTHORIZED.
 * Neither the configured nor the presented token is ever logged or echoed. Apply it with `@AdminOnly()`.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  /** Only the digest is kept. */
  private readonly expected: Buffer | null;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'adminApiToken'>) {
    this.expected = config.adminApiToken === null ? null : secretDigest(config.adminApiToken);
  }

  canActivate(context: ExecutionContext): boolean {
    if (this.expected === null) throw new ApiError('FORBIDDEN', ADMIN_API_DISABLED_MESSAGE);
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers[ADMIN_TOKEN_HEADER];
    if (header === undefined || header === '') {
      throw new ApiError('UNAUTHORIZED', `Missing ${ADMIN_TOKEN_HEADER} header`);
    }
    if (!matchesSecret(this.expected, header))
      throw new ApiError('UNAUTHORIZED', `Invalid ${ADMIN_TOKEN_HEADER}`);
    return true;
  }
}

/**
 * The route (or every route of the controller) is an operator route: it needs `x-admin-token` (see
 * `AdminTokenGuard`). Declares the header and the 401/403 answers in OpenAPI.
 */
export const AdminOnly = (): MethodDecorator & ClassDecorator =>
  applyDecorators(
    UseGuards(AdminTokenGuard),
    ApiHeader({
      name: ADMIN_TOKEN_HEADER,
      required: true,
      description: 'The operator token (`ADMIN_API_TOKEN`); without it configured the admin API answers 403',
    }),
    ApiResponse({ status: 401, description: 'UNAUTHORIZED: missing or wrong x-admin-token' }),
    ApiResponse({
      status: 403,
      description: 'FORBIDDEN: the admin API is disabled (ADMIN_API_TOKEN is not set)',
    }),
  );
