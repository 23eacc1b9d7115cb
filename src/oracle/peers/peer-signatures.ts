import { Logger } from '@nestjs/common';
import { type Hex, isAddressEqual, recoverAddress } from 'viem';
import type { OraclePeer } from '../config/peers.js';
import type { Attestation, OracleSignature } from '../attestation.js';
import { ATTESTATION_ROUTES, digestOf, messageIdOf, sameDomain } from '../messages/oracle-messages.js';
import { OracleAnswerTooLarge, readOracleAnswer, tooManySignatures } from '../read-oracle-answer.js';
import { nonCanonical } from '../signer/ethereum-signature.js';

/** A peer's refusals that say the chain shows something else than our reading (the rest are failures). */
const FACT_REFUSALS = new Set([
  'ATTESTATION_MISMATCH',
  'AMBIGUOUS_ATTESTATION',
  'TRANSACTION_NOT_FOUND',
  'TRANSACTION_NOT_FINAL',
]);

/** How one peer's answer was judged (logged; `kept` signatures join the attestation). */
export type PeerOutcome =
  | { readonly peer: string; readonly outcome: 'agreed'; readonly kept: readonly OracleSignature[] }
  | { readonly peer: string; readonly outcome: 'shadow-agreed'; readonly signers: readonly string[] }
  | {
      readonly peer: string;
      readonly outcome: 'disagreed' | 'failed' | 'timed-out';
      readonly reason: string;
    };

/**
 * Asks each peer for the same attestation (with `requestPeerSignatures: false`, so peers never fan out in turn) and
 * keeps a peer's signature only when its message id and domain equal ours and the signature recovers to the signer it
 * names. A peer that times out (`timeoutMs`), errors, answers more than MAX_ANSWER_BYTES or MAX_ANSWER_SIGNATURES,
 * or disagrees is skipped and logged; nothing a peer does fails the request. Signatures marked `shadow` are checked and their agreement logged, but never kept.
 */
export class PeerSignatures {
  private readonly logger = new Logger('OraclePeers');

  constructor(
    private readonly peers: readonly OraclePeer[],
    private readonly timeoutMs: number,
  ) {}

  async collect(
    ours: Attestation,
    body: Record<string, unknown>,
    callerKey: string | undefined,
  ): Promise<{ signatures: OracleSignature[]; outcomes: PeerOutcome[] }> {
    const outcomes = await Promise.all(this.peers.map((peer) => this.ask(peer, ours, body, callerKey)));
    const signatures: OracleSignature[] = [];
    const signers = new Set(ours.signatures.map((signature) => signature.signer.toLowerCase()));
    for (const outcome of outcomes) {
      this.logger.log({
        msg: 'peer attestation',
        kind: ours.kind,
        messageId: ours.messageId,
        ...summary(outcome),
      });
      if (outcome.outcome !== 'agreed') continue;
      for (const signature of outcome.kept) {
        if (signers.has(signature.signer.toLowerCase())) continue;
        signers.add(signature.signer.toLowerCase());
        signatures.push(signature);
      }
    }
    return { signatures, outcomes };
  }

  private async ask(
    peer: OraclePeer,
    ours: Attestation,
    body: Record<string, unknown>,
    callerKey: string | undefined,
  ): Promise<PeerOutcome> {
    const key = peer.key.kind === 'key' ? peer.key.value : callerKey;
    let answer: Response;
    try {
      answer = await fetch(`${peer.url}/attestations/${ATTESTATION_ROUTES[ours.kind]}/v1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        body: JSON.stringify({ ...body, requestPeerSignatures: false }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      return {
        peer: peer.url,
        outcome: timedOut ? 'timed-out' : 'failed',
        reason: timedOut ? `no answer within ${this.timeoutMs} ms` : (error as Error).message,
      };
    }
    let theirs: Partial<Attestation>;
    try {
      theirs = (await readOracleAnswer(answer)) as Partial<Attestation>;
    } catch (error) {
      if (error instanceof OracleAnswerTooLarge) {
        return { peer: peer.url, outcome: 'failed', reason: error.message };
      }
      if ((error as Error).name === 'TimeoutError') {
        return { peer: peer.url, outcome: 'timed-out', reason: `no answer within ${this.timeoutMs} ms` };
      }
      return { peer: peer.url, outcome: 'failed', reason: `HTTP ${answer.status}, not JSON` };
    }
    if (!answer.ok) {
      const code = (theirs as { errorCode?: string }).errorCode ?? 'no errorCode';
      // Only a reading of the chain that differs from ours is a disagreement; a refused key or a failing RPC is not.
      const outcome = FACT_REFUSALS.has(code) ? 'disagreed' : 'failed';
      return { peer: peer.url, outcome, reason: `HTTP ${answer.status} ${code}` };
    }
    return judge(peer.url, ours, theirs);
  }
}

/**
 * A peer's answer against ours: same message, same domain, canonical signatures (as the verifier contract counts
 * them) that recover to the signers they name. A malleated copy (high `s`, or `v` 0/1) would recover too, and kept
 * first it would displace the signer's genuine signature from the aggregate, so the peer is dropped instead.
 */
export async function judge(
  peer: string,
  ours: Attestation,
  theirs: Partial<Attestation>,
): Promise<PeerOutcome> {
  let theirId: Hex;
  try {
    theirId = messageIdOf(ours.kind, theirs.message as never);
  } catch {
    return { peer, outcome: 'disagreed', reason: 'message does not encode' };
  }
  if (theirId !== ours.messageId || theirs.messageId !== ours.messageId) {
    return { peer, outcome: 'disagreed', reason: `message ${theirId} differs from ours ${ours.messageId}` };
  }
  if (!sameDomain(ours.domain, theirs.domain))
    return { peer, outcome: 'disagreed', reason: 'domain differs' };
  // Before any recovery: each costs an ecrecover, and valid signatures of random keys cost nothing to attach.
  const crowded = tooManySignatures(theirs);
  if (crowded) return { peer, outcome: 'failed', reason: crowded };
  const digest = digestOf(ours.kind, ours.message, ours.domain);
  const valid: OracleSignature[] = [];
  for (const signature of Array.isArray(theirs.signatures) ? theirs.signatures : []) {
    const shape = nonCanonical(signature?.signature);
    if (shape) {
      return {
        peer,
        outcome: 'disagreed',
        reason: `a signature of ${String(signature?.signer)} is not canonical: ${shape}`,
      };
    }
    if (!(await recoversTo(digest, signature))) {
      return {
        peer,
        outcome: 'disagreed',
        reason: `a signature does not recover to ${String(signature?.signer)}`,
      };
    }
    valid.push({
      signer: signature.signer,
      signature: signature.signature,
      shadow: signature.shadow === true,
    });
  }
  if (valid.length === 0) return { peer, outcome: 'disagreed', reason: 'no signature' };
  const counted = valid.filter((signature) => !signature.shadow);
  if (counted.length === 0) {
    return { peer, outcome: 'shadow-agreed', signers: valid.map((signature) => signature.signer) };
  }
  return { peer, outcome: 'agreed', kept: counted };
}

async function recoversTo(digest: Hex, signature: Partial<OracleSignature> | undefined): Promise<boolean> {
  if (!signature || typeof signature.signature !== 'string' || typeof signature.signer !== 'string')
    return false;
  try {
    const recovered = await recoverAddress({ hash: digest, signature: signature.signature });
    return isAddressEqual(recovered, signature.signer);
  } catch {
    return false;
  }
}

function summary(outcome: PeerOutcome): Record<string, unknown> {
  if (outcome.outcome === 'agreed') {
    return { peer: outcome.peer, outcome: outcome.outcome, signers: outcome.kept.map((s) => s.signer) };
  }
  return { ...outcome };
}
