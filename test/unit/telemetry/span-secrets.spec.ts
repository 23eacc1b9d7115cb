import { trace } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { secretMasker, secretsOf } from '../../../src/common/logging/redact.js';
import { openTelemetryTracer } from '../../../src/telemetry/open-telemetry.js';
import { maskSpanTextWith } from '../../../src/telemetry/tracing.js';

const PROVIDER_KEY = 'Zx9k-3LqR7wVb2NcY8hT5mJ1pFd4sGe6';
const RPC_URL = `https://eth-mainnet.g.alchemy.com/v2/${PROVIDER_KEY}`;

describe("what Ferry's spans record of a failure", () => {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({
    spanProcessors: [new tracing.SimpleSpanProcessor(exporter)],
  });

  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    maskSpanTextWith((text) => text);
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  it("masks the configuration's secrets in the exception and the status, as log lines do", async () => {
    maskSpanTextWith(secretMasker(secretsOf({ chains: [{ id: 1, rpcUrl: RPC_URL }] })));
    const sut = openTelemetryTracer();
    // As viem words a failed call.
    const failure = new Error(`HTTP request failed.\n\nURL: ${RPC_URL}\nRequest body: {"method":"eth_call"}`);

    await expect(
      sut.inSpan('command SubmitFill', {}, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);

    const [span] = exporter.getFinishedSpans();
    const exported = JSON.stringify({ status: span.status, events: span.events });
    expect(exported).not.toContain(PROVIDER_KEY);
    expect(span.status.message).toBe(
      'HTTP request failed.\n\nURL: https://eth-mainnet.g.alchemy.com/v2/[redacted]\nRequest body: {"method":"eth_call"}',
    );
    expect(span.events[0].attributes).toMatchObject({
      'exception.type': 'Error',
      'exception.message': span.status.message,
    });
    expect(String(span.events[0].attributes?.['exception.stacktrace'])).toContain('[redacted]');
    // The caller still gets its own error, unmasked.
    expect(failure.message).toContain(PROVIDER_KEY);
  });

  it('masks a password in any URL with no configured secrets at all', async () => {
    maskSpanTextWith(secretMasker());
    const sut = openTelemetryTracer();
    await expect(
      sut.inSpan('append request-0x1', {}, () =>
        Promise.reject(new Error('cannot connect to postgres://ferry:s3cret-pw@db.internal/ferry')),
      ),
    ).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span.status.message).toBe('cannot connect to postgres://ferry:[redacted]@db.internal/ferry');
  });
});
