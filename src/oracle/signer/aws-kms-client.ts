import { ConfigError } from '../../config/config.error.js';
import type { Env } from '../../config/resolve-placeholders.js';
import { type AwsCredentials, signAwsRequest } from './aws-sigv4.js';

/** What `GetPublicKey` answers about the key (the public key as DER SubjectPublicKeyInfo). */
export interface KmsPublicKey {
  readonly keyId: string;
  readonly keySpec: string;
  readonly keyUsage: string | null;
  readonly publicKey: Uint8Array;
}

export interface AwsKmsClientOptions {
  /** `https://kms.<region>.amazonaws.com`, or a compatible service (`CLOUD_KMS_ENDPOINT`). */
  readonly endpoint: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
  /** Each request is aborted after this long (default 10 s): a KMS that hangs must not hold an attestation. */
  readonly timeoutMs?: number;
}

/** Error types that mean the credentials (not the key) are wrong, so the message can say what to fix. */
const CREDENTIAL_ERRORS = new Set([
  'InvalidSignatureException',
  'UnrecognizedClientException',
  'IncompleteSignature',
  'IncompleteSignatureException',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'MissingAuthenticationToken',
]);

/**
 * A KMS call failed: the action, the HTTP status and the AWS error type when KMS answered. Its message never holds
 * the credentials (the request's headers are not part of it). The status is not named `statusCode` on purpose: the
 * HTTP error filter would otherwise pass a KMS 4xx through to the oracle's caller.
 */
export class KmsRequestError extends Error {
  constructor(
    readonly action: string,
    message: string,
    readonly httpStatus: number | null = null,
    readonly errorType: string | null = null,
  ) {
    super(`AWS KMS ${action} failed: ${message}`);
    this.name = 'KmsRequestError';
  }
}

/** The credentials KMS requests are signed with, from `env`; a ConfigError names the variable that is missing. */
export function awsCredentialsFromEnv(env: Env): AwsCredentials {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId) throw new ConfigError('AWS_ACCESS_KEY_ID', 'is required with SIGNING_MODULE=cloud-kms');
  if (!secretAccessKey) {
    throw new ConfigError('AWS_SECRET_ACCESS_KEY', 'is required with SIGNING_MODULE=cloud-kms');
  }
  const sessionToken = env.AWS_SESSION_TOKEN || undefined;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/**
 * The two AWS KMS actions the oracle needs, over KMS's JSON protocol (`X-Amz-Target: TrentService.<Action>`,
 * `application/x-amz-json-1.1`) and signed with SigV4. The IAM policy of the credentials needs `kms:GetPublicKey` and
 * `kms:Sign` on the key, nothing else.
 */
export class AwsKmsClient {
  private readonly url: URL;
  private readonly timeoutMs: number;

  constructor(private readonly options: AwsKmsClientOptions) {
    this.url = new URL(options.endpoint);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async getPublicKey(keyId: string): Promise<KmsPublicKey> {
    const answer = await this.call('GetPublicKey', { KeyId: keyId });
    const publicKey = answer.PublicKey;
    const keySpec = answer.KeySpec ?? answer.CustomerMasterKeySpec;
    if (typeof publicKey !== 'string' || typeof keySpec !== 'string') {
      throw new KmsRequestError('GetPublicKey', 'the answer has no PublicKey or KeySpec');
    }
    return {
      keyId: typeof answer.KeyId === 'string' ? answer.KeyId : keyId,
      keySpec,
      keyUsage: typeof answer.KeyUsage === 'string' ? answer.KeyUsage : null,
      publicKey: new Uint8Array(Buffer.from(publicKey, 'base64')),
    };
  }

  /** ECDSA over secp256k1 of a 32-byte digest that KMS does not hash again (`MessageType: DIGEST`); DER-encoded. */
  async sign(keyId: string, digest: Uint8Array): Promise<Uint8Array> {
    const answer = await this.call('Sign', {
      KeyId: keyId,
      Message: Buffer.from(digest).toString('base64'),
      MessageType: 'DIGEST',
      SigningAlgorithm: 'ECDSA_SHA_256',
    });
    if (typeof answer.Signature !== 'string') {
      throw new KmsRequestError('Sign', 'the answer has no Signature');
    }
    return new Uint8Array(Buffer.from(answer.Signature, 'base64'));
  }

  private async call(action: string, request: Record<string, string>): Promise<Record<string, unknown>> {
    const body = JSON.stringify(request);
    const headers = signAwsRequest({
      method: 'POST',
      url: this.url,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `TrentService.${action}` },
      body,
      credentials: this.options.credentials,
      region: this.options.region,
      service: 'kms',
      date: new Date(),
    });
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new KmsRequestError(action, this.transportProblem(error));
    }
    const answer = parseObject(text);
    if (!response.ok) {
      const errorType = errorTypeOf(answer, response.headers.get('x-amzn-errortype'));
      const detail = typeof answer?.message === 'string' ? answer.message : answer?.Message;
      const hint = errorType && CREDENTIAL_ERRORS.has(errorType) ? CREDENTIAL_HINT : '';
      throw new KmsRequestError(
        action,
        `${errorType ?? 'error'} (HTTP ${response.status})` +
          (typeof detail === 'string' ? `: ${detail.slice(0, 300)}` : '') +
          hint,
        response.status,
        errorType,
      );
    }
    if (!answer)
      throw new KmsRequestError(action, `the answer is not a JSON object (HTTP ${response.status})`);
    return answer;
  }

  private transportProblem(error: unknown): string {
    const name = (error as { name?: string })?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return `${this.url.origin} did not answer within ${this.timeoutMs} ms`;
    }
    const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
    return `could not reach ${this.url.origin} (${reason})`;
  }
}

const CREDENTIAL_HINT =
  '; check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (and that the region is the key’s)';

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** `com.amazonaws.kms#NotFoundException` or `NotFoundException` in the body; `Type:…` in `x-amzn-ErrorType`. */
function errorTypeOf(answer: Record<string, unknown> | null, header: string | null): string | null {
  const raw = typeof answer?.__type === 'string' ? answer.__type : header?.split(':')[0];
  if (!raw) return null;
  return raw.slice(raw.lastIndexOf('#') + 1);
}
