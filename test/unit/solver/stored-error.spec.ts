import { HttpRequestError, RpcRequestError, TimeoutError } from 'viem';
import { storedError } from '../../../src/solver/solver-job.js';

const KEY = 'Zx9k-3LqR7wVb2NcY8hT5mJ1pFd4sGe6';
const URL = `https://eth-mainnet.g.alchemy.com/v2/${KEY}`;
const BODY = { method: 'eth_estimateGas', params: [{ from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8' }] };

describe(storedError.name, () => {
  it("keeps viem's short message and the node's words, never the URL or the request body", () => {
    const failures = [
      new HttpRequestError({ url: URL, body: BODY, details: 'fetch failed', status: 502 }),
      new RpcRequestError({ url: URL, body: BODY, error: { code: -32000, message: 'upstream unavailable' } }),
      new TimeoutError({ url: URL, body: BODY }),
    ];
    // As viem words them, the full messages carry the key.
    for (const failure of failures) expect(failure.message).toContain(KEY);

    const stored = failures.map(storedError);

    for (const text of stored) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain('eth_estimateGas');
    }
    expect(stored[0]).toBe('HTTP request failed. (fetch failed)');
    expect(stored[1]).toContain('upstream unavailable');
    expect(stored[2]).toBe('The request took too long to respond. (The request timed out.)');
  });

  it('stores other errors as they are', () => {
    expect(storedError(new Error('quorum not met: 1 of 2 signers'))).toBe('quorum not met: 1 of 2 signers');
    expect(storedError('lease lost')).toBe('lease lost');
  });
});
