import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type Address, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ApiError } from '../common/http/api-error.js';
import { CLOCK, type Clock } from '../common/clock.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { EVENT_STORE, type EventStore } from '../event-store/event-store.js';
import { ExecuteRequestCommand } from '../requests/commands/execute-request.command.js';
import type { RequestQuotedData } from '../requests/domain/request-events.js';
import {
  type PermitParameters,
  permitDepositCalldata,
  verifyPermitSignature,
} from '../quotes/domain/steps/permit.js';

/**
 * The execute path of `usePermit` quotes: the user signed an EIP-3009 `ReceiveWithAuthorization` (the quote's
 * `authorize` step); Ferry checks it against the recorded quote and its relayer submits
 * `depositErc20WithAuthorization` on the origin chain, paying the gas. The request goes `depositing`; the chain
 * watcher confirms the deposit (`pending`) like any other.
 */
@Injectable()
export class ExecuteService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly commands: CommandBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async permit(
    requestId: string,
    signature: Hex,
  ): Promise<{ message: string; requestId: string; txHash: string }> {
    const events = await this.store.readStream(`request-${requestId.toLowerCase()}`);
    const quoted = events[0];
    if (!quoted || quoted.type !== 'RequestQuoted') {
      throw new ApiError('NOT_FOUND', `No quote issued request ${requestId}`);
    }
    const quote = quoted.data as RequestQuotedData;
    if (
      events.length > 1 &&
      events.some((event) => event.type !== 'RequestQuoted' && event.type !== 'DepositDetected')
    ) {
      throw new ApiError('CONFLICT', `Request ${quote.requestId} is past its deposit`);
    }
    const origin = this.config.chains.chain(quote.originChainId);
    const currency = this.config.chains.currency(origin.id, quote.currencyIn.currency.address);
    if (!quote.features.includes('permit') || !currency.eip712) {
      throw new ApiError('UNSUPPORTED_OPTION', `Request ${quote.requestId} was not quoted with usePermit`);
    }
    const relayerKey = this.config.chainRuntime.relayerPrivateKey;
    if (!relayerKey || !origin.rpcUrl) {
      throw new ApiError('CHAIN_NOT_CONFIGURED', `No relayer for chain ${origin.id} here`, {
        chainId: origin.id,
        variable: origin.rpcUrl ? 'RELAYER_PRIVATE_KEY' : origin.rpcUrlVariable,
      });
    }
    const parameters: PermitParameters = {
      requestId: quote.requestId as Hex,
      chainId: origin.id,
      token: currency.address as Address,
      tokenDomain: currency.eip712,
      user: quote.user as Address,
      depository: origin.depository as Address,
      amount: BigInt(quote.currencyIn.amount),
      validAfter: 0,
      validBefore: Math.floor(Date.parse(quote.quoteExpiresAt) / 1000),
    };
    await verifyPermitSignature(parameters, signature);
    const account = privateKeyToAccount(relayerKey);
    const wallet = createWalletClient({ account, transport: http(origin.rpcUrl) });
    const txHash = await wallet.sendTransaction({
      account,
      chain: null,
      to: origin.depository as Address,
      data: permitDepositCalldata(parameters, signature),
    });
    await this.commands.execute(
      new ExecuteRequestCommand(
        quote.requestId,
        {
          type: 'SubmitDeposit',
          data: { via: 'permit', chainId: origin.id, txHash, submittedAt: this.clock.now().toISOString() },
        },
        { actor: 'execute' },
      ),
    );
    return { message: 'Submitted', requestId: quote.requestId, txHash };
  }
}
