import { type Address, type Hex, isAddress, isAddressEqual, recoverAddress } from 'viem';
import {
  type AttestationKind,
  type AttestationMessage,
  digestOf,
  messageIdOf,
  type OracleDomain,
  sameDomain,
} from '../messages/oracle-messages.js';
import { nonCanonical } from '../signer/ethereum-signature.js';

/** An attestation as stored or received: nothing in it is trusted until checked here. */
export interface UntrustedAttestation {
  readonly kind: string;
  readonly messageId: string;
  readonly domain: { name: string; version: string; chainId: number; verifyingContract: string };
  readonly message: unknown;
  readonly signatures: readonly { readonly signer: string; readonly signature: string }[];
}

export interface SignatureCheck {
  readonly signer: string;
  /** The address the signature recovers to over the recomputed digest, or null when it is not canonical or does not recover. */
  readonly recovered: string | null;
  /** Canonical (as FerryOracleVerifier requires), recovers to the signer it names, who is in the configured set. */
  readonly counted: boolean;
  readonly problem: string | null;
}

export interface AttestationCheck {
  /** The message id recomputed from the message (it must equal the stored one). */
  readonly messageId: Hex | null;
  readonly problems: readonly string[];
  readonly signatures: readonly SignatureCheck[];
  /** Distinct configured signers with a valid signature. */
  readonly counted: readonly Address[];
}

/**
 * Checks an attestation against Ferry's own view: the message id is recomputed from the message, the domain must be
 * the configured one, and each signature must be canonical (65 bytes, `v` 27 or 28, low `s`: what the verifier
 * contract counts) and recover (over the recomputed digest) to the signer it names, who must be in `signers`. Used by
 * the solver's quorum and by `requests:verify`; it trusts neither the stored id, nor the names, nor the `shadow`
 * flags. It never throws on what it is given: an answer of any shape (another oracle's) is a problem or a signature
 * that does not count, so one oracle answering nonsense cannot fail the gathering of the others' attestation.
 */
export async function checkAttestation(
  attestation: UntrustedAttestation,
  domain: OracleDomain,
  signers: readonly Address[],
): Promise<AttestationCheck> {
  const problems: string[] = [];
  const kind = attestation.kind as AttestationKind;
  let messageId: Hex | null = null;
  try {
    messageId = messageIdOf(kind, attestation.message as AttestationMessage);
  } catch (error) {
    problems.push(`message does not encode as ${kind}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (messageId && messageId !== attestation.messageId) {
    problems.push(`messageId ${attestation.messageId} is not the message's ${messageId}`);
  }
  if (!sameDomain(domain, attestation.domain)) problems.push('domain is not the configured hub domain');
  if (!Array.isArray(attestation.signatures)) problems.push('signatures is not a list');
  if (problems.length > 0) return { messageId, problems, signatures: [], counted: [] };
  const digest = digestOf(kind, attestation.message as AttestationMessage, domain);
  const checks: SignatureCheck[] = [];
  const counted: Address[] = [];
  for (const entry of attestation.signatures as readonly unknown[]) {
    const fields = (entry ?? {}) as { signer?: unknown; signature?: unknown };
    const signer = String(fields.signer);
    const unnamed = isAddress(signer, { strict: false }) ? null : 'the signer it names is no address';
    const shape = unnamed ? null : nonCanonical(fields.signature);
    const recovered =
      unnamed || shape
        ? null
        : await recoverAddress({ hash: digest, signature: fields.signature as Hex }).catch(() => null);
    const named = recovered !== null && isAddressEqual(recovered, signer as Address);
    const known = signers.find((candidate) => named && isAddressEqual(candidate, recovered));
    const problem = unnamed
      ? unnamed
      : shape
        ? `not canonical: ${shape}`
        : !recovered
          ? 'does not recover'
          : !named
            ? `recovers to ${recovered}, not ${signer}`
            : !known
              ? 'signer is not in the configured signer set'
              : null;
    checks.push({ signer, recovered, counted: problem === null, problem });
    if (known && !counted.some((address) => isAddressEqual(address, known))) counted.push(known);
  }
  return { messageId, problems, signatures: checks, counted };
}
