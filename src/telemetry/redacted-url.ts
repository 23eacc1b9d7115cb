import type { Attributes } from '@opentelemetry/api';

/** What stands in for a URL's path and query on a span. */
export const REDACTED = 'REDACTED';

/**
 * The `url.*` attributes of an outgoing request (`url.full`, `url.path`, `url.query`) with its path and query
 * replaced by `REDACTED`: RPC providers take their key in either (`https://eth-mainnet.g.alchemy.com/v2/<key>`,
 * `…?apikey=<key>`), and whoever reads traces must not read keys. The origin stays (scheme, host, port, also in
 * `server.address` and `server.port`): it says which provider, hence which chain, was called. A bare `/` is kept.
 *
 * @example redactedUrlAttributes('https://mainnet.infura.io', '/v3/abc') // { 'url.full': 'https://mainnet.infura.io/REDACTED', … }
 */
export function redactedUrlAttributes(origin: string, path: string): Attributes {
  let url: URL;
  try {
    url = new URL(path, origin);
  } catch {
    // The instrumentation skips a request whose URL does not parse; nothing of it may get through either way.
    return { 'url.full': REDACTED, 'url.path': REDACTED, 'url.query': REDACTED };
  }
  const pathname = url.pathname === '/' ? '/' : `/${REDACTED}`;
  const query = url.search === '' ? '' : REDACTED;
  return {
    'url.full': `${url.origin}${pathname}${query === '' ? '' : `?${query}`}`,
    'url.path': pathname,
    'url.query': query,
  };
}
