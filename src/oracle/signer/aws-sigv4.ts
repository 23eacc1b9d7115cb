import { createHash, createHmac } from 'node:crypto';

/** AWS credentials (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` for temporary ones). */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface SignAwsRequestParameters {
  readonly method: string;
  readonly url: URL;
  /** Headers to send and sign (besides `host`, `x-amz-date` and `x-amz-security-token`, which this adds). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly credentials: AwsCredentials;
  readonly region: string;
  readonly service: string;
  readonly date: Date;
}

/**
 * Signs a request with AWS Signature Version 4 (`AWS4-HMAC-SHA256`, the `Authorization` header form) and returns the
 * headers to send: the given ones plus `x-amz-date`, `x-amz-security-token` when the credentials are temporary, and
 * `authorization`. `host` is signed from the URL but not returned: fetch sends exactly `url.host`.
 *
 * Written against node:crypto rather than the AWS SDK, which would bring a large dependency tree for two calls; the
 * tests check it against AWS's published test-suite signatures.
 *
 * @example signAwsRequest({ method: 'POST', url: new URL('https://kms.us-east-1.amazonaws.com/'), headers, body,
 *   credentials, region: 'us-east-1', service: 'kms', date: new Date() })
 */
export function signAwsRequest(parameters: SignAwsRequestParameters): Record<string, string> {
  const { credentials, region, service } = parameters;
  const amzDate = parameters.date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const added: Record<string, string> = { 'x-amz-date': amzDate };
  if (credentials.sessionToken) added['x-amz-security-token'] = credentials.sessionToken;
  const signed = canonicalHeaders({ ...parameters.headers, ...added, host: parameters.url.host });
  const signedHeaders = signed.map(([name]) => name).join(';');
  const canonicalRequest = [
    parameters.method.toUpperCase(),
    canonicalUri(parameters.url),
    canonicalQuery(parameters.url),
    signed.map(([name, value]) => `${name}:${value}\n`).join(''),
    signedHeaders,
    sha256Hex(parameters.body),
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = [day, region, service, 'aws4_request'].reduce<Buffer>(
    (previous, part) => hmac(previous, part),
    Buffer.from(`AWS4${credentials.secretAccessKey}`, 'utf8'),
  );
  const signature = hmac(key, stringToSign).toString('hex');
  return {
    ...parameters.headers,
    ...added,
    authorization:
      `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, ` +
      `SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

/** Lower-case names, sorted; values trimmed with inner runs of spaces collapsed; headers without a value left out. */
function canonicalHeaders(headers: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value.trim().replace(/\s+/g, ' ')])
    .filter(([, value]) => value !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The path as sent, each segment encoded once more (every service but S3 signs the path double-encoded). */
function canonicalUri(url: URL): string {
  const path = url.pathname || '/';
  return path
    .split('/')
    .map((segment) => encodeRfc3986(segment))
    .join('/');
}

function canonicalQuery(url: URL): string {
  return [...url.searchParams]
    .map(([name, value]) => [encodeRfc3986(name), encodeRfc3986(value)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** encodeURIComponent leaves `!'()*` as they are; SigV4 wants every byte but `A-Z a-z 0-9 - _ . ~` escaped. */
function encodeRfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}
