import { types } from 'node:util';

/**
 * Keys whose values never reach a log line, wherever they sit in a logged object: headers (`x-api-key`,
 * `authorization`, `x-admin-token`, `x-amz-security-token`, `cookie`) and anything named like a secret, by suffix
 * (`apiKey`, `adminApiToken`, `solverPrivateKey`, `ECDSA_PRIVATE_KEY`, `secretAccessKey`, `AWS_SESSION_TOKEN`,
 * `encryptionKey`, `password`, `mnemonic`). `apiKeyId`, `accessKeyId` and `keyPrefix` are not secrets and stay.
 */
const SECRET_KEY =
  /(authorization|cookie|password|passphrase|secret|token|mnemonic|private[-_]?key|api[-_]?key|access[-_]?key|encryption[-_]?key)$/i;

export const REDACTED = '[redacted]';

/** A Ferry API key (`fk_` + 43 base64url characters): the display prefix (`fk_` + 7, stored in clear) is kept. */
const API_KEY = /(?<![A-Za-z0-9_-])(fk_[A-Za-z0-9_-]{7})[A-Za-z0-9_-]{36}(?![A-Za-z0-9_-])/g;
/** 64 hex digits standing alone, without `0x`: how raw private keys are pasted (`openssl rand -hex 32`). */
const BARE_HEX_32 = /(?<![0-9A-Za-z])[0-9a-fA-F]{64}(?![0-9A-Za-z])/g;
/**
 * `0x` + 64 hex digits right after a word naming a key (`privateKey: 0x…`, `ECDSA_PRIVATE_KEY=0x…`). Any other
 * `0x` + 64 hex is left alone: transaction hashes, block hashes and request ids have that shape too, and operators
 * need them in the logs.
 */
const LABELLED_HEX_32 =
  /(private[ _-]?key|secret|mnemonic)([^0-9A-Za-z]{1,4})0x[0-9a-fA-F]{64}(?![0-9A-Za-z])/gi;

/** The password of a URL's user information (`postgres://user:password@host`, `esdb://admin:changeit@…`). */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s/@]+@/gi;

/** Keys holding URLs of the process's services (`rpcUrl`, `DATABASE_URL`, an OTLP endpoint). */
const URL_KEY = /(url|endpoint)$/i;

/** A path segment or query value this long in a service's URL is taken for a key (Alchemy, Infura, QuickNode). */
const URL_SECRET_LENGTH = 16;

export const isSecretKey = (key: string): boolean => SECRET_KEY.test(key);

/**
 * Masks secrets inside free text: Ferry API keys, bare 32-byte hex keys, labelled `0x` keys, and every value in
 * `known` (the process's own keys and tokens, matched exactly, so a private key is masked wherever it appears
 * without masking the transaction hashes that share its shape).
 */
export function secretMasker(known: readonly string[] = []): (text: string) => string {
  const values = [...new Set(known.flatMap(variants))].sort((a, b) => b.length - a.length);
  return (text) => {
    let masked = text;
    for (const value of values) if (masked.includes(value)) masked = masked.split(value).join(REDACTED);
    return masked
      .replace(URL_PASSWORD, `$1${REDACTED}@`)
      .replace(API_KEY, `$1…${REDACTED}`)
      .replace(BARE_HEX_32, REDACTED)
      .replace(LABELLED_HEX_32, `$1$2${REDACTED}`);
  };
}

/** A secret as it may be written: as given, and a hex key in either case, with or without its `0x`. */
function variants(secret: string): string[] {
  if (secret.length < 16) return [];
  if (!/^(0x)?[0-9a-fA-F]+$/.test(secret)) return [secret];
  const digits = secret.replace(/^0x/, '');
  return [secret, digits.toLowerCase(), digits.toUpperCase()];
}

/**
 * The string values (and binary keys, as hex and base64) held under secret-named keys of a configuration, and the
 * keys inside its URLs: a URL's password, and its path segments and query values of 16 characters or more
 * (providers put API keys there: `https://eth-mainnet.g.alchemy.com/v2/<key>`), which viem's and pg's error messages
 * repeat.
 */
export function secretsOf(config: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (node === null || typeof node !== 'object' || depth > 6) return;
    for (const [key, value] of Object.entries(node)) {
      if (isSecretKey(key) && typeof value === 'string') found.push(value);
      else if (URL_KEY.test(key) && typeof value === 'string') found.push(...secretsInUrl(value));
      else if (isSecretKey(key) && Buffer.isBuffer(value))
        found.push(value.toString('hex'), value.toString('base64'), value.toString('base64url'));
      else visit(value, depth + 1);
    }
  };
  visit(config, 0);
  return found;
}

/** The parts of a service's URL that may be a key (see `secretsOf`), as written and decoded. */
function secretsInUrl(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const parts = [
    url.password,
    ...url.pathname.split('/'),
    ...[...url.searchParams.values()],
    ...url.search
      .slice(1)
      .split('&')
      .map((pair) => pair.slice(pair.indexOf('=') + 1)),
  ];
  const decoded = parts.flatMap((part) => {
    try {
      return [part, decodeURIComponent(part)];
    } catch {
      return [part];
    }
  });
  return [...new Set(decoded.filter((part) => part.length >= URL_SECRET_LENGTH))];
}

const MAX_DEPTH = 8;

/**
 * A logged value made safe to write: secret-named keys replaced by "[redacted]" (null, undefined and booleans are
 * kept: they say whether a secret is set, not what it is), strings masked, errors serialised (type, message, stack,
 * their own fields, cause) and masked, bytes summarised, bigints as decimal strings. `keep(key, value)` leaves a
 * top-level value to the logger's serializer (Fastify's raw request and reply objects).
 */
export function redactFields(
  value: object,
  mask: (text: string) => string,
  keep: (key: string, value: unknown) => boolean = () => false,
): Record<string, unknown> {
  const path = new Set<object>();
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === 'string') return mask(node);
    if (typeof node === 'bigint') return node.toString();
    if (node === null || typeof node !== 'object' || node instanceof Date) return node;
    if (Buffer.isBuffer(node) || ArrayBuffer.isView(node)) return `[${node.byteLength} bytes]`;
    if (depth > MAX_DEPTH) return '[too deep]';
    if (path.has(node)) return '[circular]';
    path.add(node);
    try {
      if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
      if (types.isNativeError(node)) return walkError(node, depth);
      return walkEntries(node, depth);
    } finally {
      path.delete(node);
    }
  };
  const walkEntries = (node: object, depth: number): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(node).map(([key, item]) => [
        key,
        isSecretKey(key) && item !== null && item !== undefined && typeof item !== 'boolean'
          ? REDACTED
          : walk(item, depth + 1),
      ]),
    );
  const walkError = (error: Error, depth: number): Record<string, unknown> => {
    const { cause } = error as { cause?: unknown };
    return {
      type: error.name,
      message: mask(error.message),
      stack: error.stack === undefined ? undefined : mask(error.stack),
      ...walkEntries(error, depth),
      ...(cause === undefined ? {} : { cause: walk(cause, depth + 1) }),
    };
  };
  if (types.isNativeError(value)) return walkError(value, 0);
  const top: Record<string, unknown> = {};
  path.add(value);
  for (const [key, item] of Object.entries(value)) {
    top[key] = keep(key, item)
      ? item
      : isSecretKey(key) && item !== null && item !== undefined && typeof item !== 'boolean'
        ? REDACTED
        : walk(item, 1);
  }
  return top;
}
