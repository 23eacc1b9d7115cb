import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Where webhooks may go (ARCHITECTURE §7, issue 6): HTTPS only, and never to an address inside our network or the
 * cloud's (private, loopback, link-local, unique-local, CGNAT, multicast, metadata, reserved), including the same
 * addresses written as IPv4-mapped or NAT64 IPv6. The development/test allowance lets loopback through (and plain
 * http, to loopback only); nothing else. Checked when an endpoint is configured and again before each delivery,
 * which then connects to the checked address (`sendWebhook({connectTo})`) so DNS cannot change it in between.
 */

export interface TargetPolicy {
  /** Development and test only: allow loopback targets, over http or https. */
  readonly allowInsecureLocal: boolean;
}

/** Resolves a host name to every address it has (IPv4 and IPv6). */
export type HostResolver = (hostname: string) => Promise<string[]>;

export type TargetCheck =
  | { readonly ok: true; readonly url: URL; readonly addresses: string[] }
  | { readonly ok: false; readonly reason: string };

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'metadata'
  | 'reserved';

export interface AddressClass {
  readonly kind: AddressKind;
  /** The range that matched, e.g. `10.0.0.0/8`, or `IPv4-mapped 127.0.0.0/8`. */
  readonly range: string;
}

/** Cloud metadata services by name: refused whatever they resolve to. */
const METADATA_HOSTNAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
]);

type V4Rule = readonly [network: number, bits: number, kind: AddressKind, label: string];

const v4 = (text: string): number => text.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
const rule4 = (cidr: string, kind: AddressKind): V4Rule => {
  const [network, bits] = cidr.split('/');
  return [v4(network), Number(bits), kind, cidr];
};

/** First match wins: the specific metadata addresses come before the ranges that contain them. */
const V4_RULES: readonly V4Rule[] = [
  rule4('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OpenStack, …
  rule4('169.254.170.2/32', 'metadata'), // AWS ECS task metadata
  rule4('168.63.129.16/32', 'metadata'), // Azure wireserver (a public address)
  rule4('100.100.100.200/32', 'metadata'), // Alibaba Cloud
  rule4('0.0.0.0/8', 'unspecified'),
  rule4('10.0.0.0/8', 'private'),
  rule4('100.64.0.0/10', 'cgnat'),
  rule4('127.0.0.0/8', 'loopback'),
  rule4('169.254.0.0/16', 'link-local'),
  rule4('172.16.0.0/12', 'private'),
  rule4('192.0.0.0/24', 'reserved'),
  rule4('192.0.2.0/24', 'reserved'),
  rule4('192.88.99.0/24', 'reserved'),
  rule4('192.168.0.0/16', 'private'),
  rule4('198.18.0.0/15', 'reserved'),
  rule4('198.51.100.0/24', 'reserved'),
  rule4('203.0.113.0/24', 'reserved'),
  rule4('224.0.0.0/4', 'multicast'),
  rule4('240.0.0.0/4', 'reserved'), // incl. 255.255.255.255
];

function classifyV4(address: string): AddressClass {
  const value = v4(address);
  for (const [network, bits, kind, label] of V4_RULES) {
    const size = 2 ** (32 - bits);
    if (Math.floor(value / size) === Math.floor(network / size)) return { kind, range: label };
  }
  return { kind: 'public', range: 'public' };
}

/** An IPv6 address (already validated by `isIP`) as 16 bytes. */
function v6Bytes(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    // A dotted IPv4 tail (`::ffff:1.2.3.4`) is the last two groups.
    const value = v4(last);
    tail.push(Math.floor(value / 65536), value % 65536);
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, null];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const headGroups = parse(head);
  const restGroups = rest === null ? [] : parse(rest);
  const missing = 8 - headGroups.length - restGroups.length - tail.length;
  const groups = [
    ...headGroups,
    ...Array<number>(rest === null ? 0 : missing).fill(0),
    ...restGroups,
    ...tail,
  ];
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

const hexOf = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
const startsWith = (bytes: number[], prefixHex: string, bits: number) => {
  const full = hexOf(bytes);
  const wholeNibbles = Math.floor(bits / 4);
  if (full.slice(0, wholeNibbles) !== prefixHex.slice(0, wholeNibbles)) return false;
  const extra = bits % 4;
  if (extra === 0) return true;
  const mask = (0xf << (4 - extra)) & 0xf;
  return (parseInt(full[wholeNibbles], 16) & mask) === (parseInt(prefixHex[wholeNibbles], 16) & mask);
};
const embeddedV4 = (bytes: number[], at: number) => bytes.slice(at, at + 4).join('.');

const prefix6 = (cidr: string): readonly [prefixHex: string, bits: number] => {
  const [network, bits] = cidr.split('/');
  return [hexOf(v6Bytes(network)), Number(bits)];
};

/** IPv6 prefixes that embed an IPv4 address (at byte `at`), which is then judged by the IPv4 rules. */
const V6_EMBEDDING: readonly (readonly [prefixHex: string, bits: number, label: string, at: number])[] = [
  [...prefix6('::ffff:0:0/96'), 'IPv4-mapped', 12],
  [...prefix6('::ffff:0:0:0/96'), 'IPv4-translated', 12],
  [...prefix6('64:ff9b::/96'), 'NAT64', 12],
  [...prefix6('2002::/16'), '6to4', 2],
];

const rule6 = (cidr: string, kind: AddressKind) => [...prefix6(cidr), kind, cidr] as const;
const V6_RULES: readonly (readonly [prefixHex: string, bits: number, kind: AddressKind, label: string])[] = [
  rule6('fd00:ec2::254/128', 'metadata'), // AWS instance metadata over IPv6
  rule6('64:ff9b:1::/48', 'reserved'), // local-use NAT64
  rule6('100::/64', 'reserved'), // discard-only
  rule6('2001::/32', 'reserved'), // Teredo
  rule6('2001:db8::/32', 'reserved'), // documentation
  rule6('fc00::/7', 'unique-local'),
  rule6('fe80::/10', 'link-local'),
  rule6('fec0::/10', 'private'), // site-local (deprecated)
  rule6('ff00::/8', 'multicast'),
];

function classifyV6(address: string): AddressClass {
  const bytes = v6Bytes(address);
  const hex = hexOf(bytes);
  if (hex === '0'.repeat(32)) return { kind: 'unspecified', range: '::/128' };
  if (hex === `${'0'.repeat(31)}1`) return { kind: 'loopback', range: '::1/128' };
  for (const [prefix, bits, label, at] of V6_EMBEDDING) {
    if (startsWith(bytes, prefix, bits)) {
      const inner = classifyV4(embeddedV4(bytes, at));
      return { kind: inner.kind, range: `${label} ${inner.range}` };
    }
  }
  // IPv4-compatible (deprecated ::a.b.c.d): the whole ::/96 block.
  if (startsWith(bytes, '0'.repeat(24), 96)) {
    const inner = classifyV4(embeddedV4(bytes, 12));
    return inner.kind === 'public'
      ? { kind: 'reserved', range: '::/96 (IPv4-compatible)' }
      : { kind: inner.kind, range: `IPv4-compatible ${inner.range}` };
  }
  for (const [prefix, bits, kind, label] of V6_RULES) {
    if (startsWith(bytes, prefix, bits)) return { kind, range: label };
  }
  return { kind: 'public', range: 'public' };
}

/** What kind of address `address` is (IPv4 or IPv6, brackets and a zone id allowed), or null if it is not one. */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  switch (isIP(bare)) {
    case 4:
      return classifyV4(bare);
    case 6:
      return classifyV6(bare.toLowerCase());
    default:
      return null;
  }
}

/** The default bound on resolving an endpoint's host (`webhooks.resolveTimeoutMs`). */
export const DEFAULT_RESOLVE_TIMEOUT_MS = 5_000;

export interface HostResolverOptions {
  /** The whole lookup (both families) gives up after this. */
  readonly timeoutMs: number;
  /** Nameservers (`ip` or `ip:port`); the system's (`/etc/resolv.conf`) when absent. */
  readonly servers?: readonly string[];
}

/** Answers meaning "no such records", not "could not find out": a family without addresses is no error. */
const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND']);
const LOOPBACK_ADDRESSES = ['127.0.0.1', '::1'];

/**
 * Every address of `hostname`: its A then its AAAA records, asked of the nameservers with c-ares
 * (`dns.promises.Resolver`), given up after `timeoutMs`. Not `dns.lookup`: that runs `getaddrinfo` on libuv's thread
 * pool (four threads), and a lookup abandoned at the timeout keeps its thread until the system resolver gives up,
 * so a few endpoints whose nameservers never answer would stall every other lookup and all fs and crypto work of
 * the process. c-ares waits on sockets in the event loop instead. Differences from `dns.lookup` (docs/webhooks.md,
 * "Target policy"): `/etc/hosts`, nsswitch and the `search` domains are not used, except that `localhost` and
 * `*.localhost` are loopback without asking anyone (RFC 6761). A query that fails for another reason than "no such
 * records" (a timeout, SERVFAIL, a refusal) fails the lookup, whatever the other family answered.
 */
export function hostResolver(options: HostResolverOptions): HostResolver {
  const { timeoutMs } = options;
  let resolver: Resolver | undefined;
  const channel = (): Resolver => {
    if (!resolver) {
      // Two tries per nameserver of half the bound each. Whether c-ares doubles the second try's wait differs between
      // its versions and runs (a third of the bound each gave up after two thirds of it, in CI); with halves the
      // tries end at the bound, or the bound's timer below ends them.
      resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 2)), tries: 2 });
      if (options.servers) resolver.setServers([...options.servers]);
    }
    return resolver;
  };
  const family = (query: Promise<string[]>): Promise<string[]> =>
    query.catch((error: NodeJS.ErrnoException) => {
      if (NO_RECORDS.has(error.code ?? '')) return [];
      throw error;
    });
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (name === 'localhost' || name.endsWith('.localhost')) return [...LOOPBACK_ADDRESSES];
    const dns = channel();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const [v4, v6] = await Promise.race([
        Promise.all([family(dns.resolve4(name)), family(dns.resolve6(name))]),
        timeout,
      ]);
      if (v4.length === 0 && v6.length === 0) {
        throw Object.assign(new Error(`${name} has no A or AAAA records`), { code: 'ENOTFOUND' });
      }
      return [...v4, ...v6];
    } finally {
      clearTimeout(timer);
    }
  };
}

/** `hostResolver` with the default bound: for checking an endpoint when it is configured. */
export const systemResolver: HostResolver = hostResolver({ timeoutMs: DEFAULT_RESOLVE_TIMEOUT_MS });

const refuse = (reason: string): TargetCheck => ({ ok: false, reason });

/**
 * Whether `url` may receive webhooks under `policy`. Resolves the host (an IP literal is taken as it is) and checks
 * every address it has: one forbidden address refuses the target, since the connection could go to any of them.
 * On success, `addresses` are the checked addresses to connect to. Never throws.
 */
export async function checkWebhookTarget(
  url: string,
  policy: TargetPolicy,
  resolve: HostResolver = systemResolver,
): Promise<TargetCheck> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse('not a valid URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return refuse(`must use https (got ${parsed.protocol.replace(/:$/, '')})`);
  }
  if (parsed.protocol === 'http:' && !policy.allowInsecureLocal) return refuse('must use https (got http)');
  if (parsed.username !== '' || parsed.password !== '') {
    return refuse('must not carry credentials; send them as a custom header');
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === '') return refuse('has no host');
  if (METADATA_HOSTNAMES.has(name)) return refuse(`${name} is a cloud metadata service`);
  const localName = name === 'localhost' || name.endsWith('.localhost');
  if (localName && !policy.allowInsecureLocal) {
    return refuse(`${name} is a loopback name (allowed only in development and test)`);
  }

  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = [...new Set(await resolve(host))];
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return refuse(`cannot resolve ${name}: ${typeof code === 'string' ? code : (error as Error).message}`);
    }
    if (addresses.length === 0) return refuse(`${name} resolves to no address`);
  }

  for (const address of addresses) {
    const found = classifyAddress(address);
    if (!found) return refuse(`${name} resolved to ${JSON.stringify(address)}, which is not an IP address`);
    if (found.kind === 'public') continue;
    if (found.kind === 'loopback' && policy.allowInsecureLocal) continue;
    const shown = isIP(host) ? address : `${name} resolves to ${address}, which`;
    const article = /^[aeiou]/.test(found.kind) ? 'an' : 'a';
    const dev = found.kind === 'loopback' ? ' (allowed only in development and test)' : '';
    return refuse(`${shown} is ${article} ${found.kind} address (${found.range})${dev}`);
  }
  if (parsed.protocol === 'http:') {
    const allLoopback = addresses.every((address) => classifyAddress(address)?.kind === 'loopback');
    if (!allLoopback)
      return refuse('must use https (http is allowed only to loopback in development and test)');
  }
  if (localName && !addresses.every((address) => classifyAddress(address)?.kind === 'loopback')) {
    return refuse(`${name} must resolve to loopback addresses only`);
  }
  return { ok: true, url: parsed, addresses: addresses.map((address) => address.replace(/%.*$/, '')) };
}

/** Headers the sender sets itself, or that control framing and the connection: never taken from configuration. */
export const RESERVED_WEBHOOK_HEADERS: readonly string[] = [
  'x-signature-timestamp',
  'x-signature-sha256',
  'x-webhook-id',
  'content-type',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
];

export const MAX_CUSTOM_HEADERS = 20;
export const CUSTOM_HEADER_VALUE_MAX_LENGTH = 4096;
/** RFC 7230 `token`: the characters a header field name may have. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 7230 `field-value` without obs-fold: visible characters, spaces and tabs; no CR, LF, NUL or other controls. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export type HeadersCheck =
  | { readonly ok: true; readonly headers: Record<string, string> }
  | { readonly ok: false; readonly reason: string };

/**
 * Validates an endpoint's custom headers: at most 20, names are RFC 7230 tokens, unique case-insensitively, none of
 * `RESERVED_WEBHOOK_HEADERS`; values are strings of at most 4096 characters without CR, LF or other control
 * characters (trimmed). Never throws.
 */
export function checkCustomHeaders(headers: unknown): HeadersCheck {
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    return { ok: false, reason: 'custom headers must be an object of header names to values' };
  }
  const entries = Object.entries(headers as Record<string, unknown>);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    return { ok: false, reason: `at most ${MAX_CUSTOM_HEADERS} custom headers (got ${entries.length})` };
  }
  const seen = new Set<string>();
  const result: Record<string, string> = {};
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) {
      return { ok: false, reason: `invalid header name ${JSON.stringify(name)} (RFC 7230 token)` };
    }
    const lower = name.toLowerCase();
    if (RESERVED_WEBHOOK_HEADERS.includes(lower)) {
      return { ok: false, reason: `${name} cannot be set: the webhook sender sets it` };
    }
    if (seen.has(lower)) return { ok: false, reason: `${name} is given twice (names are case-insensitive)` };
    seen.add(lower);
    if (typeof value !== 'string') return { ok: false, reason: `${name} must be a string` };
    const trimmed = value.trim();
    if (trimmed.length > CUSTOM_HEADER_VALUE_MAX_LENGTH || !HEADER_VALUE.test(trimmed)) {
      return {
        ok: false,
        reason: `${name} must be at most ${CUSTOM_HEADER_VALUE_MAX_LENGTH} characters without CR, LF or control characters`,
      };
    }
    result[name] = trimmed;
  }
  return { ok: true, headers: result };
}
