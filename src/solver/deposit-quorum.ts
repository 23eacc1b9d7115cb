import { checkAttestation } from '../oracle/client/verify-attestation.js';
import type { OracleGateway } from '../oracle/client/oracle-gateway.js';
import type { OracleAttestedData } from '../requests/domain/request-events.js';
import type { RequestFacts } from './request-facts.js';
import { attestSubject } from './solver-jobs.js';

/**
 * Whether the request's confirmed deposit may be filled under the oracle quorum: without one (quorum 0), always;
 * with one, only once its `OracleAttested` record carries valid signatures of at least `quorum` trusted signers —
 * re-checked here against the configured domain and signer set, not taken from the record. This is the second,
 * independent check of the deposit rules: the oracles read the deposit from their own RPCs.
 */
export async function depositAttested(facts: RequestFacts, oracle: OracleGateway): Promise<boolean> {
  if (oracle.quorum === 0) return true;
  if (!facts.deposit) return false;
  const subject = attestSubject.deposit(facts.deposit);
  for (const event of facts.events) {
    if (event.type !== 'OracleAttested') continue;
    const attested = event.data as OracleAttestedData;
    if (attested.subject !== subject || attested.kind !== 'depository-deposit') continue;
    const check = await checkAttestation(attested, oracle.domain, oracle.signers);
    if (check.problems.length === 0 && check.counted.length >= oracle.quorum) return true;
  }
  return false;
}
