import { type CanActivate, type ExecutionContext, Injectable, Logger, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/http/api-error.js';
import { labelOf, type OracleApiKey } from './config/api-keys.js';

/** Marks an oracle route that needs no key (`/lives/v1`). */
export const OpenOracleRoute = () => SetMetadata('oracle:open', true);

/** The keys the guard checks (`API_KEYS`); null: every route is open. */
export class OracleApiKeys {
  constructor(readonly keys: readonly OracleApiKey[] | null) {}
}

/**
 * With `API_KEYS` set, every oracle route but the open ones needs a valid `x-api-key` (401 UNAUTHORIZED otherwise).
 * The key's label is logged and put on the request (`oracleCaller`); the key never is.
 */
@Injectable()
export class OracleAuthGuard implements CanActivate {
  private readonly logger = new Logger('OracleAuth');

  constructor(
    private readonly keys: OracleApiKeys,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.keys.keys) return true;
    if (this.reflector.get<boolean>('oracle:open', context.getHandler())) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { oracleCaller?: string }>();
    const header = request.headers['x-api-key'];
    const label = typeof header === 'string' && header ? labelOf(this.keys.keys, header) : null;
    if (label === null) {
      this.logger.warn({
        msg: 'oracle request refused',
        reqId: request.id,
        url: request.url,
        keyGiven: !!header,
      });
      throw new ApiError('UNAUTHORIZED', 'This route needs a valid x-api-key');
    }
    request.oracleCaller = label;
    this.logger.debug({ msg: 'oracle caller', reqId: request.id, caller: label });
    return true;
  }
}
