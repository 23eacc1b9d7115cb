import { serverSpanAttributes, serverSpanName } from '../../../src/telemetry/server-span.js';
import type { IncomingRequest } from '../../../src/telemetry/tracing.js';

const request = (overrides: Partial<IncomingRequest> = {}): IncomingRequest => ({
  method: 'GET',
  url: '/requests/v3?user=0xabc',
  route: '/requests/v3',
  headers: { 'user-agent': 'relay-sdk/2', authorization: 'Bearer admin-token', 'x-api-key': 'key-1' },
  requestId: 'req-1',
  clientAddress: '203.0.113.7',
  httpVersion: '1.1',
  scheme: 'http',
  ...overrides,
});

describe('server spans', () => {
  it('are named by method and route, or by method alone when no route matched', () => {
    expect(serverSpanName(request())).toBe('GET /requests/v3');
    expect(serverSpanName(request({ route: undefined }))).toBe('GET');
    expect(serverSpanName(request({ method: 'PURGE', route: undefined }))).toBe('_OTHER');
  });

  it('record the stable HTTP attributes and the request id, and no header but the user agent', () => {
    const attributes = serverSpanAttributes(request(), (text) => text);
    expect(attributes).toEqual({
      'http.request.method': 'GET',
      'url.scheme': 'http',
      'url.path': '/requests/v3',
      'url.query': 'user=0xabc',
      'http.route': '/requests/v3',
      'network.protocol.version': '1.1',
      'client.address': '203.0.113.7',
      'user_agent.original': 'relay-sdk/2',
      'ferry.x_request_id': 'req-1',
    });
  });

  it('mask the query as log lines are, and keep an unknown method as sent beside _OTHER', () => {
    const attributes = serverSpanAttributes(
      request({ method: 'PURGE', url: '/x?token=s3cret', route: undefined, headers: {} }),
      (text) => text.replace('s3cret', '[redacted]'),
    );
    expect(attributes).toMatchObject({
      'http.request.method': '_OTHER',
      'http.request.method_original': 'PURGE',
      'url.path': '/x',
      'url.query': 'token=[redacted]',
    });
    expect(attributes).not.toHaveProperty('http.route');
    expect(attributes).not.toHaveProperty('user_agent.original');
  });
});
