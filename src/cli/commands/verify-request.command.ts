import type { Address } from 'viem';
import type { EventStore } from '../../event-store/event-store.js';
import { checkAttestation } from '../../oracle/client/verify-attestation.js';
import type { OracleDomain } from '../../oracle/messages/oracle-messages.js';
import { requestStreamId } from '../../requests/domain/request.aggregate.js';
import type { OracleAttestedData } from '../../requests/domain/request-events.js';
import type { CliOutput } from '../output.js';

/**
 * `requests:verify <requestId>`: every oracle attestation recorded on the request, checked from scratch — the message
 * id recomputed from the message, the domain compared with the configured hub domain, each signature recovered over
 * the recomputed digest and its signer looked up in the configured signer set (`ORACLE_SIGNERS`, or the mounted
 * oracle's signer). Exit 0 when every attestation has at least one valid signature of a trusted signer (and, with a
 * quorum, the deposit's has the quorum); 1 otherwise, or when the request has no attestation to verify.
 */
export async function verifyRequest(
  deps: {
    readonly store: EventStore;
    readonly domain: OracleDomain;
    readonly signers: readonly Address[];
    readonly quorum: number;
  },
  requestId: string,
  output: CliOutput,
): Promise<number> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(requestId)) {
    output.err(`"${requestId}" is not a request id (0x followed by 64 hex digits).`);
    return 1;
  }
  const events = await deps.store.readStream(requestStreamId(requestId));
  if (events.length === 0) {
    output.err(`Request ${requestId} not found: its stream ${requestStreamId(requestId)} has no events.`);
    return 1;
  }
  const attestations = events.filter((event) => event.type === 'OracleAttested');
  output.out(`Signer set: ${deps.signers.length > 0 ? deps.signers.join(', ') : '(none configured)'}`);
  output.out(
    `Domain: ${deps.domain.name} v${deps.domain.version}, chain ${deps.domain.chainId}, ${deps.domain.verifyingContract}`,
  );
  if (attestations.length === 0) {
    output.err(`Request ${requestId} has no oracle attestation to verify.`);
    return 1;
  }
  let valid = true;
  for (const event of attestations) {
    const attested = event.data as OracleAttestedData;
    const check = await checkAttestation(attested, deps.domain, deps.signers);
    const needed = attested.kind === 'depository-deposit' ? Math.max(deps.quorum, 1) : 1;
    const ok = check.problems.length === 0 && check.counted.length >= needed;
    valid &&= ok;
    output.out('');
    output.out(
      `${ok ? 'VALID  ' : 'INVALID'} ${attested.kind} ${attested.subject} (#${event.revision.toString()})`,
    );
    output.out(
      `  messageId: ${attested.messageId}${check.messageId === attested.messageId ? ' (recomputed)' : ''}`,
    );
    for (const problem of check.problems) output.out(`  problem: ${problem}`);
    for (const signature of check.signatures) {
      output.out(
        `  ${signature.counted ? 'ok ' : 'bad'} ${signature.signer}${signature.problem ? `: ${signature.problem}` : ''}`,
      );
    }
    output.out(`  trusted signers: ${check.counted.length} (needed ${needed})`);
  }
  output.out('');
  output.out(
    valid ? `All ${attestations.length} attestation(s) verify.` : 'Some attestations do not verify.',
  );
  return valid ? 0 : 1;
}
