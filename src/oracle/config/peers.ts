import { ConfigError } from '../../config/config.error.js';

/** A peer oracle: its base URL and the key to call it with, or `pass-through` (forward the caller's `x-api-key`). */
export interface OraclePeer {
  readonly url: string;
  readonly key: { readonly kind: 'key'; readonly value: string } | { readonly kind: 'pass-through' };
}

/**
 * `PEERS`: `<peer_base_url>|<peer_key>` entries separated by `;`. A malformed entry, or a URL with credentials, stops
 * start-up; the error names the entry by position, never its URL or key.
 */
export function parsePeers(text: string): OraclePeer[] {
  const entries = text.split(';').map((entry) => entry.trim());
  if (entries.at(-1) === '') entries.pop();
  return entries.map((entry, index) => {
    const bar = entry.lastIndexOf('|');
    const url = bar > 0 ? entry.slice(0, bar).trim() : '';
    const key = bar > 0 ? entry.slice(bar + 1).trim() : '';
    let parsed: URL | null = null;
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !key) {
      throw new ConfigError('PEERS', `entry ${index + 1} must be <http(s) base url>|<key or pass-through>`);
    }
    // fetch refuses a URL with credentials, so such a peer would fail every call, and its URL (the password in it)
    // would be logged with each failure: the peer's credential belongs after the `|`.
    if (parsed.username || parsed.password) {
      throw new ConfigError(
        'PEERS',
        `entry ${index + 1} has credentials in its URL; put the peer key after |`,
      );
    }
    return {
      url: url.replace(/\/+$/, ''),
      key: key === 'pass-through' ? { kind: 'pass-through' } : { kind: 'key', value: key },
    };
  });
}
