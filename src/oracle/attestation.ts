import type { Address, Hex } from 'viem';
import type { AttestationKind, AttestationMessages, OracleDomain } from './messages/oracle-messages.js';

/** One signer's signature of an attestation; `shadow`: made by an instance in shadow mode, never counted. */
export interface OracleSignature {
  readonly signer: Address;
  readonly signature: Hex;
  readonly shadow: boolean;
}

/**
 * What every attestation route answers: the message and its id, the domain it is signed under, and the signatures —
 * this instance's first, then each peer's that agreed (same message and domain, signature recovering to the signer it
 * names, not shadow). docs/oracle.md, "Responses".
 */
export interface Attestation<K extends AttestationKind = AttestationKind> {
  readonly kind: K;
  readonly messageId: Hex;
  readonly domain: OracleDomain;
  readonly message: AttestationMessages[K];
  readonly signatures: readonly OracleSignature[];
}
