import { Logger } from '@nestjs/common';
import { getAddress, type Hex } from 'viem';
import type { ChainInfo } from '../chains/chain.js';
import { ApiError } from '../common/http/api-error.js';
import type { ChainRegistry } from '../chains/chain-registry.js';
import type { Attestation, OracleSignature } from './attestation.js';
import { type ChainAttestor, ORACLE_VM_TYPE_OF } from './chains/chain-attestor.js';
import {
  type AttestationKind,
  type AttestationMessages,
  digestOf,
  messageIdOf,
  type OracleDomain,
} from './messages/oracle-messages.js';
import type { PeerSignatures } from './peers/peer-signatures.js';
import type { OracleSigner } from './signer/oracle-signer.js';

/** What a caller asks about: the chain, the transaction, and per kind what picks or bounds the fact. */
export interface AttestationRequests {
  readonly 'depository-deposit': { chainId: number; transactionId: Hex; depositId?: Hex; logIndex?: number };
  readonly 'depository-withdrawal': { chainId: number; transactionId: Hex; logIndex?: number };
  readonly 'solver-fill': PaymentRequest;
  readonly 'solver-refund': PaymentRequest;
}

export interface PaymentRequest {
  readonly chainId: number;
  readonly transactionId: Hex;
  readonly orderId: Hex;
  readonly recipient: Hex;
  readonly currency: Hex;
  readonly minimumAmount: string;
}

export interface AttestOptions {
  /** Ask the configured peers too (`requestPeerSignatures`). */
  readonly requestPeerSignatures?: boolean;
  /** The caller's `x-api-key`, forwarded to `pass-through` peers. */
  readonly callerKey?: string;
}

/**
 * The oracle's one operation: read the fact from the chain (the chain's VM adapter), build the message, sign it, and
 * on request gather the peers' agreeing signatures. Stateless: the same request gives the same message on every
 * instance, and nothing is stored.
 */
export class AttestationService {
  private readonly logger = new Logger('Oracle');

  constructor(
    readonly chains: ChainRegistry,
    private readonly attestors: (chain: ChainInfo) => ChainAttestor,
    private readonly signer: OracleSigner,
    readonly domain: OracleDomain,
    private readonly shadow: boolean,
    private readonly peers: PeerSignatures | null,
  ) {}

  get signerAddress(): string {
    return this.signer.address;
  }

  async attest<K extends AttestationKind>(
    kind: K,
    request: AttestationRequests[K],
    options: AttestOptions = {},
  ): Promise<Attestation<K>> {
    const message = await this.messageOf(kind, request);
    const messageId = messageIdOf(kind, message);
    const own: OracleSignature = {
      signer: this.signer.address,
      signature: await this.signer.signDigest(digestOf(kind, message, this.domain)),
      shadow: this.shadow,
    };
    const attestation: Attestation<K> = { kind, messageId, domain: this.domain, message, signatures: [own] };
    if (!options.requestPeerSignatures || !this.peers) return attestation;
    const { signatures } = await this.peers.collect(
      attestation,
      request as unknown as Record<string, unknown>,
      options.callerKey,
    );
    return { ...attestation, signatures: [own, ...signatures] };
  }

  private async messageOf<K extends AttestationKind>(
    kind: K,
    request: AttestationRequests[K],
  ): Promise<AttestationMessages[K]> {
    const chain = this.chains.find(request.chainId);
    if (!chain) {
      throw new ApiError(
        'UNSUPPORTED_CHAIN',
        `Chain ${request.chainId} is not loaded here; GET /chains/v1 lists them`,
        {
          chainId: request.chainId,
        },
      );
    }
    const attestor = this.attestors(chain);
    const data = { chainId: String(chain.id), transactionId: request.transactionId.toLowerCase() as Hex };
    switch (kind) {
      case 'depository-deposit': {
        const query = request as AttestationRequests['depository-deposit'];
        const result = await attestor.deposit(chain, {
          transactionId: data.transactionId,
          depositId: query.depositId,
          logIndex: query.logIndex,
        });
        return { data, result } as AttestationMessages[K];
      }
      case 'depository-withdrawal': {
        const query = request as AttestationRequests['depository-withdrawal'];
        const result = await attestor.withdrawal(chain, {
          transactionId: data.transactionId,
          logIndex: query.logIndex,
        });
        return { data, result } as AttestationMessages[K];
      }
      default: {
        const query = request as PaymentRequest;
        const order = {
          ...data,
          orderId: query.orderId.toLowerCase() as Hex,
          recipient: getAddress(query.recipient) as Hex,
          currency: getAddress(query.currency) as Hex,
          minimumAmount: BigInt(query.minimumAmount).toString(),
        };
        const result = await attestor.payment(chain, {
          transactionId: order.transactionId,
          orderId: order.orderId,
          recipient: order.recipient,
          currency: order.currency,
          minimumAmount: BigInt(order.minimumAmount),
        });
        return { data: order, result } as AttestationMessages[K];
      }
    }
  }

  /** Logged once at start: which signer this instance is, in which mode, for which domain. */
  announce(): void {
    this.logger.log({
      msg: 'oracle signer',
      signer: this.signer.address,
      shadow: this.shadow,
      domain: this.domain,
      vmTypes: [...new Set(this.chains.all().map((chain) => ORACLE_VM_TYPE_OF[chain.vmType]))],
    });
  }
}
