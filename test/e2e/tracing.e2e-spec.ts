import { existsSync } from 'node:fs';
import { type Devnet, startDevnets } from '../support/devnet.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { freePort, type Spawned, spawnNode } from '../support/process.js';
import { RpcProxy } from '../support/rpc-proxy.js';

const MAIN = 'dist/src/main.js';
const REGISTER = ['--import', './dist/src/telemetry/register.js'];
const USDC_A = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
/** Ferry's own tracer: its server spans (decision 0029), commands, appends and projections. */
const FERRY_SCOPE = 'ferry';
const UNDICI_SCOPE = '@opentelemetry/instrumentation-undici';

interface Api {
  readonly sut: Spawned;
  readonly url: string;
  readonly database: TestDatabase;
}

/**
 * The built API with the register file loaded first, on a fresh database; resolves once ready (`/health`: the
 * projections' first generations are live, and only live generations' batches are traced).
 */
async function startApi(env: Record<string, string>): Promise<Api> {
  const database = await createTestDatabase('ferry_e2e');
  const port = await freePort();
  const sut = spawnNode(
    MAIN,
    [],
    {
      ENVIRONMENT: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: database.url,
      LOG_LEVEL: 'debug',
      ...env,
    },
    REGISTER,
  );
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  void sut.exited.then(() => (exited = true));
  for (let attempt = 0; attempt < 600 && !exited; attempt += 1) {
    if ((await fetch(`${url}/health`).catch(() => undefined))?.ok) return { sut, url, database };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`The API did not start:\n${sut.stderr().slice(-4000)}`);
}

async function stopApi(api: Api | undefined): Promise<void> {
  if (!api) return;
  api.sut.child.kill('SIGTERM');
  await api.sut.exited;
  await api.database.drop();
}

/** A bridge quote, which records RequestQuoted on the request's stream; resolves with the response's request id. */
async function quote(
  url: string,
  user = `0x${'59'.repeat(20)}`,
): Promise<{ status: number; requestId: string }> {
  const chains = (await (await fetch(`${url}/chains`)).json()) as {
    chains: { id: number; erc20Currencies?: { symbol: string; address: string }[] }[];
  };
  const usdcB = chains.chains
    .find((chain) => chain.id === 31338)!
    .erc20Currencies!.find((currency) => currency.symbol === 'USDC')!.address;
  const response = await fetch(`${url}/quote/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      user,
      originChainId: 31337,
      destinationChainId: 31338,
      originCurrency: USDC_A,
      destinationCurrency: usdcB,
      amount: '25000000',
      tradeType: 'EXACT_INPUT',
    }),
  });
  await response.text();
  return { status: response.status, requestId: response.headers.get('x-request-id')! };
}

const logLines = (sut: Spawned) =>
  sut
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * Traces (docs/operations.md, "Traces"): with OTEL_EXPORTER_OTLP_ENDPOINT set, a quote's HTTP request, its queries,
 * its command, its append and the projection that later applies the event in another loop are one trace, whose id
 * the request's log line carries next to its x-request-id; without it, nothing of OpenTelemetry loads.
 */
describe('tracing (node --import ./dist/src/telemetry/register.js dist/src/main.js)', () => {
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm test builds it first (scripts/test.mjs)`);
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => receiver?.close());

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    let api: Api | undefined;
    beforeAll(async () => {
      api = await startApi({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      });
    });
    afterAll(async () => stopApi(api));

    it('traces a quote from the HTTP request through its command and append to the projection applying it', async () => {
      const { status, requestId } = await quote(api!.url);
      expect(status).toBe(200);

      const server = await receiver.waitFor(
        (span) => span.name === 'POST /quote/v2' && span.scope === FERRY_SCOPE,
      );
      expect(server).toMatchObject({ kind: 2 });
      expect(server.parentSpanId ?? '').toBe('');
      expect(server.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/quote/v2',
        'url.path': '/quote/v2',
        'http.response.status_code': 200,
        'ferry.x_request_id': requestId,
      });
      const projected = await receiver.waitFor(
        (span) => span.name === 'project requests-v3 RequestQuoted' && span.traceId === server.traceId,
      );
      const trace = receiver.spans.filter((span) => span.traceId === server.traceId);
      const named = (name: string) => trace.find((span) => span.name === name);

      const command = named('command RecordQuote');
      const append = named('append request');
      expect(command).toMatchObject({ parentSpanId: server.spanId });
      expect(append).toMatchObject({ parentSpanId: command!.spanId });
      expect(append!.attributes['ferry.stream_id']).toMatch(/^request-0x[0-9a-f]{64}$/);
      // The append's own query, and the projection's writes, are PostgreSQL spans of the same trace.
      const queries = trace.filter((span) => span.scope === '@opentelemetry/instrumentation-pg');
      expect(queries.some((span) => span.parentSpanId === append!.spanId)).toBe(true);
      expect(queries.some((span) => span.parentSpanId === projected.spanId)).toBe(true);
      // The projection ran later, in its own loop: its span continues the trace from the event's metadata.
      expect(projected.parentSpanId).toBe(append!.spanId);
      expect(projected.attributes).toMatchObject({ 'ferry.projection': 'requests-v3' });

      const logged = logLines(api!.sut).filter((line) => line.trace_id === server.traceId);
      expect(logged).toContainEqual(expect.objectContaining({ reqId: requestId, msg: 'request completed' }));
    });

    it('names the server span of a request no route matched by its method, and records no header but the user agent', async () => {
      const response = await fetch(`${api!.url}/no-such-route?limit=3`, {
        headers: { 'x-api-key': 'ferry-key-that-must-not-travel', 'x-request-id': 'unrouted-1' },
      });
      expect(response.status).toBe(404);
      const server = await receiver.waitFor(
        (span) => span.kind === 2 && span.attributes['ferry.x_request_id'] === 'unrouted-1',
      );
      expect(server).toMatchObject({ name: 'GET', scope: FERRY_SCOPE });
      expect(server.attributes).toMatchObject({
        'http.request.method': 'GET',
        'url.path': '/no-such-route',
        'url.query': 'limit=3',
        'http.response.status_code': 404,
      });
      expect(server.attributes).not.toHaveProperty('http.route');
      expect(JSON.stringify(receiver.spans)).not.toContain('ferry-key-that-must-not-travel');
    });

    it('starts no trace for probes and scrapes, nor for the queries of background loops', async () => {
      await fetch(`${api!.url}/health`);
      await fetch(`${api!.url}/metrics`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const roots = receiver.spans.filter(
        (span) => span.parentSpanId === undefined || span.parentSpanId === '',
      );
      expect(roots.map((span) => span.name)).not.toContain('GET /health');
      expect(roots.map((span) => span.name)).not.toContain('GET /metrics');
      expect(roots.filter((span) => span.scope === '@opentelemetry/instrumentation-pg')).toEqual([]);
    });

    it('still logs the request id of a request tracing ignores', async () => {
      const response = await fetch(`${api!.url}/health`, { headers: { 'x-request-id': 'probe-1' } });
      await response.text();
      expect(response.headers.get('x-request-id')).toBe('probe-1');
      // The line is written when the response is done; the pipe is read a moment later.
      let line: Record<string, unknown> | undefined;
      for (let attempt = 0; attempt < 50 && !line; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        line = logLines(api!.sut).find((entry) => entry.reqId === 'probe-1');
      }
      expect(line).toMatchObject({ msg: 'request completed' });
      expect(line).not.toHaveProperty('trace_id');
    });
  });

  describe('RPC calls to local chains, with the chain watcher running', () => {
    /** A provider's key, where Alchemy and Infura take it: in the RPC URL's path, or its query. */
    const KEY = 'k3y-of-the-pr0vider';
    let a: Devnet | undefined;
    let b: Devnet | undefined;
    let proxy: RpcProxy | undefined;
    /** Chain A's provider: a loopback proxy in front of the devnet that answers on any path. */
    let providerA: string;
    let api: Api | undefined;
    const port = (url: string) => Number(new URL(url).port);
    const rpcSpans = (spans: readonly ReceivedSpan[]) => spans.filter((span) => span.scope === UNDICI_SCOPE);
    const quoteTrace = async (): Promise<ReceivedSpan[]> => {
      const { status, requestId } = await quote(api!.url, a!.accounts.user.address);
      expect(status).toBe(200);
      const server = await receiver.waitFor(
        (span) => span.kind === 2 && span.attributes['ferry.x_request_id'] === requestId,
      );
      // The RPC calls ended before the response; a moment for their batch to arrive.
      await new Promise((resolve) => setTimeout(resolve, 500));
      return receiver.spans.filter((span) => span.traceId === server.traceId);
    };

    beforeAll(async () => {
      [a, b] = await startDevnets();
      proxy = new RpcProxy(a.rpcUrl, () => null);
      providerA = await proxy.start();
      receiver.spans.length = 0;
      api = await startApi({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        DEVNET_A_RPC_URL: `${providerA}/v2/${KEY}?apikey=${KEY}`,
        DEVNET_B_RPC_URL: b.rpcUrl,
        // Prices from the devnet's feeds on chain A: the quote reads them too.
        PRICE_SOURCE: 'feeds',
        // The test default (500 ms) is for dead RPCs; a busy machine must not turn these reads into fallbacks.
        RPC_TIMEOUT_MS: '5000',
        CHAIN_WATCHER_RUN: 'true',
        CHAIN_POLL_INTERVAL_MS: '100',
      });
    }, 180_000);
    afterAll(async () => {
      await stopApi(api);
      await proxy?.stop();
      await Promise.all([a?.stop(), b?.stop()]);
    });

    it("records a client span for each RPC call of a quote, in its request's trace", async () => {
      const trace = await quoteTrace();
      const rpc = rpcSpans(trace);
      const ids = new Set(trace.map((span) => span.spanId));
      for (const span of rpc) {
        expect(span).toMatchObject({ kind: 3, name: 'POST' });
        expect(ids).toContain(span.parentSpanId);
      }
      // Chain A (the balance, the USDC and ETH feeds) and chain B (its gas price), told apart by the provider's port.
      const toA = rpc.filter((span) => Number(span.attributes['server.port']) === port(providerA));
      const toB = rpc.filter((span) => Number(span.attributes['server.port']) === port(b!.rpcUrl));
      expect(toA.length).toBeGreaterThanOrEqual(4);
      expect(toB.length).toBeGreaterThanOrEqual(1);
      expect(rpc.length).toBe(toA.length + toB.length);
      expect(toB[0].attributes).toMatchObject({
        'server.address': '127.0.0.1',
        'url.full': `${b!.rpcUrl.replace(/\/$/, '')}/`,
        'http.response.status_code': 200,
      });
    });

    it('starts no trace for the RPC calls of background loops (the chain watcher)', async () => {
      const calls = async () => {
        const text = await (await fetch(`${api!.url}/metrics`)).text();
        return Number(/^ferry_rpc_requests_total\{chain="31338"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      };
      const before = await calls();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      // The watcher polled (every 100 ms) meanwhile; no request did.
      expect((await calls()) - before).toBeGreaterThanOrEqual(5);
      const requests = new Set(
        receiver.spans
          .filter((span) => span.scope === FERRY_SCOPE && span.kind === 2)
          .map((span) => span.traceId),
      );
      expect(rpcSpans(receiver.spans).filter((span) => !requests.has(span.traceId))).toEqual([]);
    });

    it("keeps a provider's key in the RPC URL's path or query out of every span", async () => {
      const toA = rpcSpans(await quoteTrace()).filter(
        (span) => Number(span.attributes['server.port']) === port(providerA),
      );
      expect(toA.length).toBeGreaterThan(0);
      for (const span of toA) {
        expect(span.attributes).toMatchObject({
          'url.full': `${providerA}/REDACTED?REDACTED`,
          'url.path': '/REDACTED',
          'url.query': 'REDACTED',
        });
      }
      expect(proxy!.calls.length).toBeGreaterThan(0);
      expect(JSON.stringify(receiver.spans)).not.toContain(KEY);
    });
  });

  describe('sampling at OTEL_TRACES_SAMPLER_ARG=0 (decided before the instrumentations run)', () => {
    let api: Api | undefined;
    beforeAll(async () => {
      api = await startApi({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      });
    });
    afterAll(async () => stopApi(api));

    it('records nothing of a request not sampled, and keeps its request id on its log lines', async () => {
      receiver.spans.length = 0;
      const { status, requestId } = await quote(api!.url);
      expect(status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.spans).toEqual([]);
      const lines = logLines(api!.sut).filter((line) => line.reqId === requestId);
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'request completed' }));
      expect(lines.filter((line) => 'trace_id' in line)).toEqual([]);
    });

    it("follows a caller's sampled traceparent", async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      await (
        await fetch(`${api!.url}/chains`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } })
      ).text();
      const server = await receiver.waitFor(
        (span) => span.name === 'GET /chains' && span.traceId === traceId,
      );
      expect(server).toMatchObject({ kind: 2, parentSpanId: '00f067aa0ba902b7' });
    });
  });

  describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    let api: Api | undefined;
    beforeAll(async () => {
      receiver.spans.length = 0;
      receiver.requests.length = 0;
      // The loaders say every module they load (CommonJS and ESM) on stderr.
      api = await startApi({ NODE_DEBUG: 'module,esm', OTEL_BSP_SCHEDULE_DELAY: '100' });
    });
    afterAll(async () => stopApi(api));

    it('loads no OpenTelemetry module, sends nothing and logs no trace ids', async () => {
      const { status, requestId } = await quote(api!.url);
      expect(status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests).toEqual([]);
      const loaded = api!.sut.stderr();
      // The register file itself was loaded, and the loaders' output is there to read.
      expect(loaded).toContain('telemetry/register.js');
      expect(loaded).toContain('node_modules/fastify/');
      // prom-client loads @opentelemetry/api (exemplars), which does nothing without an SDK; nothing else may load.
      expect(loaded).not.toMatch(/@opentelemetry\/(?!api[/"\s])|@fastify\/otel/);
      const lines = logLines(api!.sut);
      expect(lines).toContainEqual(expect.objectContaining({ reqId: requestId, msg: 'request completed' }));
      expect(lines.filter((line) => 'trace_id' in line)).toEqual([]);
    });
  });
});
