import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../common/http/api-error.js';
import { labelOf, type OracleApiKey } from './config/api-keys.js';

/** Marks an oracle route that needs no key (`/lives/v1`). */
export const OpenOracleRoute = () => SetMetadata('oracle:open', true);

/** The keys the guard checks (`API_KEYS`); null: every route is open (in production only with ORACLE_ALLOW_OPEN). */
export class OracleApiKeys {
  constructor(
    readonly keys: readonly OracleApiKey[] | null,
    readonly production = false,
  ) {}
}

/**
 * With `API_KEYS` set, every oracle route but the open ones needs a valid `x-api-key` (401 UNAUTHORIZED otherwise).
 * The key's label is logged and put on the request (`oracleCaller`); the key never is.
 */
@Injectable()
export class OracleAuthGuard implements CanActivate, OnApplicationBootstrap {
  private readonly logger = new Logger('OracleAuth');

  constructor(
    private readonly keys: OracleApiKeys,
    private readonly reflector: Reflector,
  ) {}

  /** An oracle open on purpose in production (`ORACLE_ALLOW_OPEN=true`) says so once at start-up, as a warning. */
  onApplicationBootstrap(): void {
    if (this.keys.keys !== null || !this.keys.production) return;
    this.logger.warn(
      'The oracle answers anyone who reaches its port: API_KEYS is unset and ORACLE_ALLOW_OPEN=true in production',
    );
  }

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
