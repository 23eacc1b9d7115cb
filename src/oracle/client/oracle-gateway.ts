import { type Address, isAddressEqual } from 'viem';
import type { Attestation, OracleSignature } from '../attestation.js';
import type { AttestationRequests } from '../attestation.service.js';
import type { AttestationKind, OracleDomain } from '../messages/oracle-messages.js';
import { AttestationRefused, type AttestationSource } from './attestation-sources.js';
import { checkAttestation } from './verify-attestation.js';

export interface GatheredAttestation<K extends AttestationKind = AttestationKind> {
  readonly attestation: Attestation<K>;
  /** Distinct signers of Ferry's signer set whose signatures of this message are valid. */
  readonly counted: readonly Address[];
}

/**
 * Ferry's side of the oracle: asks every configured source for the same attestation, checks each answer against
 * Ferry's own domain and signer set (checkAttestation), and keeps, among the answers to the question asked
 * (`answersRequest`), the message the most trusted signers agree on, with their signatures. A source that refuses, fails or disagrees only counts for nothing; when every source
 * refuses, the refusal is the answer (AttestationRefused).
 */
export class OracleGateway {
  constructor(
    private readonly sources: readonly AttestationSource[],
    readonly domain: OracleDomain,
    readonly signers: readonly Address[],
    /** Signers a deposit needs before it is filled; 0: attestations are recorded but gate nothing. */
    readonly quorum: number,
  ) {}

  async attest<K extends AttestationKind>(
    kind: K,
    request: AttestationRequests[K],
  ): Promise<GatheredAttestation<K>> {
    const answers = await Promise.allSettled(this.sources.map((source) => source.attest(kind, request)));
    const byMessage = new Map<
      string,
      { attestation: Attestation<K>; signatures: OracleSignature[]; counted: Address[] }
    >();
    for (const answer of answers) {
      if (answer.status !== 'fulfilled') continue;
      const check = await checkAttestation(answer.value, this.domain, this.signers);
      if (check.problems.length > 0 || !check.messageId || !answersRequest(kind, request, answer.value)) {
        continue;
      }
      const group = byMessage.get(check.messageId) ?? {
        attestation: answer.value,
        signatures: [],
        counted: [],
      };
      for (const [index, signature] of answer.value.signatures.entries()) {
        if (!check.signatures[index]?.counted) continue;
        if (group.counted.some((signer) => isAddressEqual(signer, signature.signer))) continue;
        group.counted.push(signature.signer);
        group.signatures.push(signature);
      }
      byMessage.set(check.messageId, group);
    }
    const best = [...byMessage.values()].sort((a, b) => b.counted.length - a.counted.length)[0];
    if (!best || best.counted.length === 0) throw refusalOf(answers);
    return { attestation: { ...best.attestation, signatures: best.signatures }, counted: best.counted };
  }
}

/**
 * Whether an answer is about what was asked: the same kind, chain and transaction, and for a fill or refund the same
 * order terms, for a deposit or withdrawal the deposit or event named. Another fact's attestation may be genuinely
 * signed (the same payment read as a refund, another deposit): counted, it would outvote the answer asked for.
 */
function answersRequest<K extends AttestationKind>(
  kind: K,
  request: AttestationRequests[K],
  attestation: Attestation,
): boolean {
  if (attestation.kind !== kind) return false;
  const { data, result } = attestation.message as unknown as Record<
    'data' | 'result',
    Record<string, unknown>
  >;
  const asked = request as unknown as Record<string, unknown>;
  const same = (field: string, answered: unknown) =>
    asked[field] === undefined || String(answered).toLowerCase() === String(asked[field]).toLowerCase();
  if (!same('chainId', data.chainId) || !same('transactionId', data.transactionId)) return false;
  if (kind === 'solver-fill' || kind === 'solver-refund') {
    return ['orderId', 'recipient', 'currency', 'minimumAmount'].every((field) => same(field, data[field]));
  }
  return same('depositId', result.depositId) && same('logIndex', result.logIndex);
}

/** Why nothing usable came back: the first refusal (the fact is not on chain as asked), else the first failure. */
function refusalOf(answers: readonly PromiseSettledResult<unknown>[]): Error {
  const reasons = answers
    .filter((answer): answer is PromiseRejectedResult => answer.status === 'rejected')
    .map((answer) => answer.reason as Error);
  return (
    reasons.find((reason) => reason instanceof AttestationRefused) ??
    reasons[0] ??
    new Error('No oracle answered with a signature of a configured signer')
  );
}
