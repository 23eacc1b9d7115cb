import type { Hex } from 'viem';
import type { Clock } from '../common/clock.js';
import type { EventStore } from '../event-store/event-store.js';
import { AttestationRefused } from '../oracle/client/attestation-sources.js';
import type { OracleGateway } from '../oracle/client/oracle-gateway.js';
import type { AttestationRequests } from '../oracle/attestation.service.js';
import type { AttestationMessage } from '../oracle/messages/oracle-messages.js';
import type {
  DepositConfirmedData,
  FillSucceededData,
  OracleAttestedData,
  RefundSucceededData,
} from '../requests/domain/request-events.js';
import { readRequestFacts, type RequestFacts } from './request-facts.js';
import type { RequestCommands } from './request-commands.js';
import type { JobOutcome } from './solver-job.js';
import { attestSubject, type ClaimedJob } from './solver-jobs.js';

/** What one attestation asks the oracles, and what Ferry recorded that the attested message must show. */
interface Ask {
  readonly kind: OracleAttestedData['kind'];
  readonly request: AttestationRequests[OracleAttestedData['kind']];
  readonly expected: Readonly<Record<string, string>>;
}

/**
 * Obtains the oracles' attestation of a request's confirmed deposit, its fill or its refund and records it on the
 * request (`OracleAttested`, signatures included). The attested message must show exactly what Ferry recorded —
 * same transaction, order, currency, amount — else nothing is recorded and the job is retried (and, with a quorum,
 * the deposit is not filled). An oracle's refusal or a quorum not yet reached is retried with the job's backoff;
 * a chain whose VM family has no oracle backend has nothing to attest.
 */
export class AttestJob {
  constructor(
    private readonly deps: {
      readonly store: EventStore;
      readonly requests: RequestCommands;
      readonly gateway: OracleGateway;
      readonly clock: Clock;
    },
  ) {}

  async run(job: ClaimedJob): Promise<JobOutcome> {
    const facts = await readRequestFacts(this.deps.store, job.requestId);
    const subject = job.depositKey;
    if (
      facts.events.some(
        (e) => e.type === 'OracleAttested' && (e.data as OracleAttestedData).subject === subject,
      )
    ) {
      return 'done';
    }
    const ask = askFor(facts, subject);
    if (!ask) return 'done';
    let gathered;
    try {
      gathered = await this.deps.gateway.attest(ask.kind, ask.request);
    } catch (error) {
      if (error instanceof AttestationRefused && error.errorCode === 'VM_NOT_CONFIGURED') return 'done';
      throw error;
    }
    const differences = differencesOf(gathered.attestation.message, ask.expected);
    if (differences.length > 0) {
      throw new Error(`Oracles attested ${subject} differently from the record: ${differences.join('; ')}`);
    }
    const needed = Math.max(this.deps.gateway.quorum, 1);
    if (gathered.counted.length < needed) {
      throw new Error(
        `Oracle quorum for ${subject} not met: ${gathered.counted.length} of ${needed} signers`,
      );
    }
    const { attestation } = gathered;
    await this.deps.requests.record(job.requestId, {
      type: 'RecordAttestation',
      data: {
        kind: ask.kind,
        subject,
        messageId: attestation.messageId,
        domain: attestation.domain,
        message: attestation.message as unknown as OracleAttestedData['message'],
        signatures: attestation.signatures,
        counted: gathered.counted,
        attestedAt: this.deps.clock.now().toISOString(),
      },
    });
    return 'done';
  }
}

/** The oracle request for a subject, from the facts recorded on the request; null when the fact is not there. */
function askFor(facts: RequestFacts, subject: string): Ask | null {
  const { quote } = facts;
  for (const event of facts.events) {
    if (
      event.type === 'DepositConfirmed' &&
      attestSubject.deposit(event.data as DepositConfirmedData) === subject
    ) {
      const deposit = event.data as DepositConfirmedData;
      return {
        kind: 'depository-deposit',
        request: {
          chainId: deposit.chainId,
          transactionId: deposit.txHash as Hex,
          depositId: quote.requestId as Hex,
          ...(deposit.logIndex !== undefined ? { logIndex: deposit.logIndex } : {}),
        },
        expected: {
          'data.chainId': String(deposit.chainId),
          'data.transactionId': deposit.txHash,
          'result.depository': deposit.depository,
          'result.depositId': quote.requestId,
          'result.depositor': deposit.depositor,
          'result.currency': deposit.currency,
          'result.amount': deposit.amount,
          ...(deposit.logIndex !== undefined ? { 'result.logIndex': String(deposit.logIndex) } : {}),
        },
      };
    }
    if (event.type === 'FillSucceeded' && attestSubject.fill(event.data as FillSucceededData) === subject) {
      const fill = event.data as FillSucceededData;
      return payment('solver-fill', fill, quote.requestId, {
        recipient: quote.recipient,
        currency: quote.currencyOut.currency.address,
        minimumAmount: quote.currencyOut.amount,
      });
    }
    if (
      event.type === 'RefundSucceeded' &&
      attestSubject.refund(event.data as RefundSucceededData) === subject
    ) {
      const refund = event.data as RefundSucceededData;
      return payment('solver-refund', refund, quote.requestId, {
        recipient: refund.recipient,
        currency: refund.currency,
        minimumAmount: refund.amount,
      });
    }
  }
  return null;
}

function payment(
  kind: 'solver-fill' | 'solver-refund',
  tx: { chainId: number; txHash: string },
  orderId: string,
  terms: { recipient: string; currency: string; minimumAmount: string },
): Ask {
  const request = {
    chainId: tx.chainId,
    transactionId: tx.txHash as Hex,
    orderId: orderId as Hex,
    recipient: terms.recipient as Hex,
    currency: terms.currency as Hex,
    minimumAmount: terms.minimumAmount,
  };
  return {
    kind,
    request,
    expected: {
      'data.chainId': String(tx.chainId),
      'data.transactionId': tx.txHash,
      'data.orderId': orderId,
      'data.recipient': terms.recipient,
      'data.currency': terms.currency,
      'data.minimumAmount': terms.minimumAmount,
    },
  };
}

/** The fields of `message` (paths like `result.amount`) that differ from `expected`, case-insensitively for hex. */
function differencesOf(message: AttestationMessage, expected: Readonly<Record<string, string>>): string[] {
  return Object.entries(expected).flatMap(([path, value]) => {
    const [part, field] = path.split('.');
    const actual = String(
      (message as unknown as Record<string, Record<string, unknown>>)[part]?.[field] ?? '',
    );
    return actual.toLowerCase() === value.toLowerCase() ? [] : [`${path} is ${actual}, recorded ${value}`];
  });
}
