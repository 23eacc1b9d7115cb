import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Address, Hex } from 'viem';
import { ApiError } from '../common/http/api-error.js';
import { CLOCK, type Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.js';
import { ExecuteRequestCommand } from '../requests/commands/execute-request.command.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import { verifyNonceMappingSignature } from './domain/steps/perps-a.js';
import type { AuthorizeBodyDto } from './authorize.dto.js';

/**
 * `POST /authorize`: checks a withdrawal's signed nonce mapping against the quote that issued it (nonce, wallet,
 * depositor, request id, signer) and records it on the request (`WithdrawalAuthorized`; the same nonce again is a
 * no-op). A request with nothing to authorize → 404 or 400; a wrong signer or nonce → 400 INVALID_SIGNATURE.
 */
@Injectable()
export class AuthorizeService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async authorize(body: AuthorizeBodyDto, signature: Hex): Promise<{ message: string; requestId: string }> {
    const requestId = body.id.toLowerCase();
    const [first] = await this.store.readStream(`request-${requestId}`, { maxCount: 1 });
    if (!first || first.type !== 'RequestQuoted') {
      throw new ApiError('NOT_FOUND', `No quote issued request ${body.id}`);
    }
    const quote = first.data as RequestQuotedData;
    if (!quote.authorization) {
      throw new ApiError('UNSUPPORTED_OPTION', 'This request has no withdrawal to authorize', {
        requestId,
      });
    }
    const chain = this.config.chains.chain(quote.originChainId);
    await verifyNonceMappingSignature({ ...body, signatureChainId: body.signatureChainId ?? 1 }, signature, {
      perpsChainName: chain.name,
      walletChainId: chain.id,
      verifyingContract: chain.depository as Address,
      requestId: quote.requestId as Hex,
      wallet: quote.authorization.wallet as Address,
      depositor: quote.authorization.depositor as Address,
      nonce: quote.authorization.nonce,
    });
    await this.commands.execute(
      new ExecuteRequestCommand(
        quote.requestId,
        {
          type: 'AuthorizeWithdrawal',
          data: {
            kind: 'nonce-mapping',
            wallet: quote.authorization.wallet,
            nonce: quote.authorization.nonce,
            signature,
            signatureChainId: body.signatureChainId ?? 1,
            authorizedAt: this.clock.now().toISOString(),
          },
        },
        { actor: 'authorize' },
      ),
    );
    return { message: 'Authorized', requestId: quote.requestId };
  }
}
