import { createHash, createHmac, generateKeyPairSync, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type Address, bytesToHex, type Hex, hexToBigInt } from 'viem';
import { privateKeyToAccount, sign } from 'viem/accounts';

/** secp256k1's group order, written out here so the fixture does not lean on the code under test. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface TestAwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface KmsTestServerOptions {
  readonly region?: string;
  readonly credentials?: TestAwsCredentials;
  /** What GetPublicKey reports (default ECC_SECG_P256K1), to test that other key specs are refused. */
  readonly keySpec?: string;
}

export const TEST_AWS_CREDENTIALS: TestAwsCredentials = {
  accessKeyId: 'AKIAFERRYORACLETEST1',
  secretAccessKey: 'ferry/kms+test-secret/not-a-real-one/0123456789',
  sessionToken: 'ferry-test-session-token/+=',
};

/**
 * A stand-in for AWS KMS on loopback that speaks its JSON protocol (GetPublicKey and Sign over `X-Amz-Target`) and,
 * like KMS, refuses any request whose SigV4 `Authorization` does not verify: it recomputes the signature from the
 * request as it arrived (method, path, the headers named in SignedHeaders, the body) with its own credentials. The
 * key is a fresh secp256k1 key made by node:crypto. Every other Sign answer carries the high `s` (n − s), as a
 * generic ECDSA signer may, so callers must normalise it.
 */
export class KmsTestServer {
  readonly keyId = `arn:aws:kms:us-east-1:000000000000:key/${randomUUID()}`;
  readonly region: string;
  readonly credentials: TestAwsCredentials;
  /** The key's Ethereum address, derived with viem from the private key. */
  readonly address: Address;
  /** The public key as DER SubjectPublicKeyInfo, encoded by node:crypto (OpenSSL). */
  readonly publicKeySpki: Buffer;
  keySpec: string;
  /** Set to hold every request unanswered (for timeouts). */
  hang = false;
  /** Each request's action and the status answered. */
  readonly requests: { action: string; status: number }[] = [];
  /** How many Sign answers carried a high `s`. */
  highSAnswers = 0;
  private readonly privateKey: Hex;
  private signCount = 0;
  private server: Server | null = null;
  private readonly held = new Set<ServerResponse>();
  port = 0;

  constructor(options: KmsTestServerOptions = {}) {
    this.region = options.region ?? 'us-east-1';
    this.credentials = options.credentials ?? TEST_AWS_CREDENTIALS;
    this.keySpec = options.keySpec ?? 'ECC_SECG_P256K1';
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    const d = privateKey.export({ format: 'jwk' }).d as string;
    this.privateKey = bytesToHex(Buffer.from(d, 'base64url'), { size: 32 });
    this.address = privateKeyToAccount(this.privateKey).address;
    this.publicKeySpki = publicKey.export({ type: 'spki', format: 'der' });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The variables an oracle needs to use this server as its KMS. */
  env(): Record<string, string> {
    return {
      SIGNING_MODULE: 'cloud-kms',
      CLOUD_KMS_SIGNER_KEY_ID: this.keyId,
      CLOUD_KMS_SIGNER_KEY_REGION: this.region,
      CLOUD_KMS_ENDPOINT: this.url,
      AWS_ACCESS_KEY_ID: this.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: this.credentials.secretAccessKey,
      ...(this.credentials.sessionToken ? { AWS_SESSION_TOKEN: this.credentials.sessionToken } : {}),
    };
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', async () => {
        if (this.hang) {
          this.held.add(response);
          return;
        }
        const { status, body } = await this.answer(request, Buffer.concat(chunks));
        const action = String(request.headers['x-amz-target'] ?? '').replace('TrentService.', '');
        this.requests.push({ action, status });
        const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.1' };
        if (status !== 200) headers['x-amzn-errortype'] = String(body.__type);
        response.writeHead(status, headers);
        response.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const response of this.held) response.destroy();
    this.held.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = null;
  }

  private async answer(request: IncomingMessage, raw: Buffer): Promise<Answer> {
    const refusal = this.verifySignature(request, raw);
    if (refusal) return refusal;
    if (request.headers['content-type'] !== 'application/x-amz-json-1.1') {
      return failure('SerializationException', 'Content-Type must be application/x-amz-json-1.1');
    }
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return failure('SerializationException', 'The body is not JSON');
    }
    if (input.KeyId !== this.keyId)
      return failure('NotFoundException', `Key '${String(input.KeyId)}' does not exist`);
    switch (request.headers['x-amz-target']) {
      case 'TrentService.GetPublicKey':
        return {
          status: 200,
          body: {
            KeyId: this.keyId,
            PublicKey: this.publicKeySpki.toString('base64'),
            KeySpec: this.keySpec,
            KeyUsage: 'SIGN_VERIFY',
            SigningAlgorithms: ['ECDSA_SHA_256'],
          },
        };
      case 'TrentService.Sign':
        return this.sign(input);
      default:
        return failure('UnknownOperationException', 'Unknown operation');
    }
  }

  private async sign(input: Record<string, unknown>): Promise<Answer> {
    if (input.MessageType !== 'DIGEST' || input.SigningAlgorithm !== 'ECDSA_SHA_256') {
      return failure('ValidationException', 'Expected MessageType DIGEST and SigningAlgorithm ECDSA_SHA_256');
    }
    const digest = Buffer.from(String(input.Message), 'base64');
    if (digest.length !== 32) return failure('ValidationException', 'A DIGEST message is 32 bytes');
    // ECDSA of the digest as given (no hashing, as KMS does for DIGEST). viem answers low-s signatures; every
    // other answer is turned into the equally valid high-s one.
    const signature = await sign({ hash: bytesToHex(digest), privateKey: this.privateKey });
    const r = hexToBigInt(signature.r);
    const s = hexToBigInt(signature.s);
    const high = this.signCount++ % 2 === 0;
    if (high) this.highSAnswers++;
    const der = derSignature(r, high ? N - s : s);
    return {
      status: 200,
      body: { KeyId: this.keyId, Signature: der.toString('base64'), SigningAlgorithm: 'ECDSA_SHA_256' },
    };
  }

  /** KMS's own answers to a bad signature: an unknown key id, a wrong scope, or a signature that does not match. */
  private verifySignature(request: IncomingMessage, body: Buffer): Answer | null {
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
        String(request.headers.authorization ?? ''),
      );
    if (!match)
      return failure('IncompleteSignatureException', 'Authorization header is missing or malformed');
    const [, accessKeyId, day, region, service, signedHeaders, signature] = match;
    if (accessKeyId !== this.credentials.accessKeyId) {
      return failure('UnrecognizedClientException', 'The security token included in the request is invalid.');
    }
    const amzDate = String(request.headers['x-amz-date'] ?? '');
    if (!amzDate.startsWith(day) || region !== this.region || service !== 'kms') {
      return failure(
        'InvalidSignatureException',
        `Credential should be scoped to ${this.region}/kms and the date`,
      );
    }
    const names = signedHeaders.split(';');
    // Stricter than AWS, which needs only host and x-amz-date: the action and the body's type must be signed too.
    const required = ['host', 'x-amz-date', 'x-amz-target', 'content-type'];
    if (this.credentials.sessionToken) required.push('x-amz-security-token');
    const missing = required.filter((name) => !names.includes(name));
    if (missing.length > 0)
      return failure('InvalidSignatureException', `Unsigned headers: ${missing.join(', ')}`);
    if (
      this.credentials.sessionToken &&
      request.headers['x-amz-security-token'] !== this.credentials.sessionToken
    ) {
      return failure('UnrecognizedClientException', 'The security token included in the request is invalid.');
    }
    const url = new URL(request.url ?? '/', 'http://placeholder');
    const canonical = [
      request.method,
      url.pathname
        .split('/')
        .map((segment) => rfc3986(segment))
        .join('/'),
      [...url.searchParams]
        .map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`)
        .sort()
        .join('&'),
      names
        .map(
          (name) =>
            `${name}:${String(request.headers[name] ?? '')
              .trim()
              .replace(/\s+/g, ' ')}\n`,
        )
        .join(''),
      signedHeaders,
      createHash('sha256').update(body).digest('hex'),
    ].join('\n');
    const scope = `${day}/${region}/${service}/aws4_request`;
    const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash('sha256').update(canonical).digest('hex')}`;
    let key = Buffer.from(`AWS4${this.credentials.secretAccessKey}`);
    for (const part of [day, region, service, 'aws4_request'])
      key = createHmac('sha256', key).update(part).digest();
    const expected = createHmac('sha256', key).update(stringToSign).digest();
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
      return failure(
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided. ' +
          'Check your AWS Secret Access Key and signing method.',
      );
    }
    return null;
  }
}

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

function failure(type: string, message: string): Answer {
  return { status: 400, body: { __type: type, message } };
}

function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** `SEQUENCE { INTEGER r, INTEGER s }` in minimal DER (a 0x00 before a top bit, no other leading zeros). */
export function derSignature(r: bigint, s: bigint): Buffer {
  const body = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

function derInteger(value: bigint): Buffer {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let bytes = Buffer.from(hex, 'hex');
  if (bytes[0] & 0x80) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
}
