import type { Attestation } from '../attestation.js';
import type { AttestationRequests, AttestationService } from '../attestation.service.js';
import { ATTESTATION_ROUTES, type AttestationKind } from '../messages/oracle-messages.js';
import { OracleAnswerTooLarge, readOracleAnswer, tooManySignatures } from '../read-oracle-answer.js';

/** Where Ferry gets attestations from: the oracle mounted in its own process, or an oracle instance over HTTP. */
export interface AttestationSource {
  /** For logs and errors: `in-process` or the instance's base URL. */
  readonly name: string;
  attest<K extends AttestationKind>(kind: K, request: AttestationRequests[K]): Promise<Attestation<K>>;
}

/** An oracle's refusal (4xx): the fact is not (yet) on the chain as asked. */
export class AttestationRefused extends Error {
  constructor(
    readonly source: string,
    readonly errorCode: string,
    message: string,
  ) {
    super(`${source}: ${errorCode} ${message}`);
    this.name = 'AttestationRefused';
  }
}

/** The oracle mounted in this process (`oracle.mount`). */
export class InProcessSource implements AttestationSource {
  readonly name = 'in-process';

  constructor(private readonly service: AttestationService) {}

  async attest<K extends AttestationKind>(kind: K, request: AttestationRequests[K]): Promise<Attestation<K>> {
    try {
      return await this.service.attest(kind, request);
    } catch (error) {
      const code = (error as { errorCode?: string }).errorCode;
      if (code) throw new AttestationRefused(this.name, code, (error as Error).message);
      throw error;
    }
  }
}

/**
 * An oracle instance at `url` (`oracle.urls`), called with `apiKey` when it has one. Its answer is read up to
 * MAX_ANSWER_BYTES and may hold at most MAX_ANSWER_SIGNATURES signatures; past either, the instance fails this call.
 */
export class HttpSource implements AttestationSource {
  constructor(
    readonly name: string,
    private readonly apiKey: string | null,
    private readonly timeoutMs: number,
  ) {}

  async attest<K extends AttestationKind>(kind: K, request: AttestationRequests[K]): Promise<Attestation<K>> {
    const response = await fetch(`${this.name}/attestations/${ATTESTATION_ROUTES[kind]}/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}) },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const body = (await readOracleAnswer(response).catch((error: unknown) => {
      if (error instanceof OracleAnswerTooLarge) throw new Error(`${this.name}: ${error.message}`);
      return null;
    })) as (Attestation<K> & { errorCode?: string; message?: string }) | null;
    if (response.status >= 400 && response.status < 500 && body?.errorCode) {
      throw new AttestationRefused(this.name, body.errorCode, body.message ?? '');
    }
    if (!response.ok || !body) throw new Error(`${this.name}: HTTP ${response.status}`);
    const crowded = tooManySignatures(body);
    if (crowded) throw new Error(`${this.name}: ${crowded}`);
    return body;
  }
}
