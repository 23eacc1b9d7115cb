/**
 * The most signatures an answer from another oracle may hold. A legitimate one holds its instance's signature and,
 * when it aggregated, one per agreeing peer: a handful. Each signature costs an ecrecover, and a peer can attach any
 * number of valid signatures of random keys, so an answer holding more is dropped before any is recovered.
 */
export const MAX_ANSWER_SIGNATURES = 64;

/**
 * The most bytes of an answer from another oracle that are read. The largest legitimate answer is a fill's
 * attestation (~1 KB: the message, its id and domain) with MAX_ANSWER_SIGNATURES signatures (~220 bytes each), about
 * 15 KB; refusals are smaller. 64 KiB leaves four times that, and is what the oracle accepts as a request body.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** An answer longer than MAX_ANSWER_BYTES: its read was stopped there (announced or streamed). */
export class OracleAnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`answer exceeds ${maxBytes} bytes`);
    this.name = 'OracleAnswerTooLarge';
  }
}

/**
 * Reads another oracle's answer as JSON, at most `maxBytes` of it: an answer announcing more (content-length) is not
 * read, and one streaming more is cancelled once past the cap, which closes the connection. Throws
 * OracleAnswerTooLarge, a SyntaxError for a body that is not JSON, or the fetch's abort (its time-out) mid-read.
 *
 * @example const body = await readOracleAnswer(await fetch(url, { signal: AbortSignal.timeout(5000) }));
 */
export async function readOracleAnswer(response: Response, maxBytes = MAX_ANSWER_BYTES): Promise<unknown> {
  const announced = Number(response.headers.get('content-length'));
  if (announced > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new OracleAnswerTooLarge(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new OracleAnswerTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}

/**
 * Why an answer holds too many signatures (more than `max`), or null: counted before any is recovered. An answer
 * without a list of signatures is not judged here (the caller does).
 */
export function tooManySignatures(answer: unknown, max = MAX_ANSWER_SIGNATURES): string | null {
  const signatures = (answer as { signatures?: unknown } | null)?.signatures;
  const count = Array.isArray(signatures) ? signatures.length : 0;
  return count > max ? `answer holds ${count} signatures, more than ${max}` : null;
}
