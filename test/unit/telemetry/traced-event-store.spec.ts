import { projectionSpans } from '../../../projections/runner/projection-spans.js';
import type { Projection } from '../../../projections/projection.js';
import type { EventStore, NewEvent, RecordedEvent } from '../../../src/event-store/event-store.js';
import { streamCategory, TracedEventStore } from '../../../src/event-store/traced-event-store.js';
import {
  currentTraceIds,
  inSpan,
  installTracer,
  type RemoteChildSpan,
  type Tracer,
} from '../../../src/telemetry/tracing.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

const recorded = (
  type: string,
  metadata: Record<string, unknown>,
  streamId = 'request-0xab',
): RecordedEvent => ({
  streamId,
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  id: `${type}-1`,
  type,
  schemaVersion: 1,
  data: {},
  metadata,
  createdAt: new Date(0),
});

const requestsOnly = {
  name: 'requests-v3',
  keysOf: (event: RecordedEvent) => (event.streamId.startsWith('request-') ? [event.streamId] : []),
} as unknown as Projection;

describe('tracing off (no tracer installed)', () => {
  it('runs the work as is and reports no trace ids', async () => {
    await expect(inSpan('append request', {}, async () => 42)).resolves.toBe(42);
    expect(currentTraceIds()).toBeUndefined();
  });
});

describe(streamCategory.name, () => {
  it.each([
    [`request-0x${'ab'.repeat(32)}`, 'request'],
    [`app-fee-account-0x${'cd'.repeat(20)}`, 'app-fee-account'],
    ['app-fee-claim-0b7c2d1e-5f3a-4c1b-9e8d-7a6b5c4d3e2f', 'app-fee-claim'],
    ['settings', 'settings'],
  ])('names %s by its category %s', (streamId, category) => {
    expect(streamCategory(streamId)).toBe(category);
  });
});

describe(projectionSpans.name, () => {
  it('opens a span per event the projection keeps that was appended in a trace', () => {
    const events = [
      recorded('RequestQuoted', { traceparent: TRACEPARENT }),
      recorded('RequestQuoted', {}),
      recorded('AppFeeAccrued', { traceparent: TRACEPARENT }, 'app-fee-account-0x01'),
    ];
    expect(projectionSpans(requestsOnly, 2, events)).toEqual([
      {
        name: 'project requests-v3 RequestQuoted',
        traceparent: TRACEPARENT,
        attributes: expect.objectContaining({
          'ferry.projection': 'requests-v3',
          'ferry.stream_id': 'request-0xab',
        }),
      },
    ]);
  });
});

describe(TracedEventStore.name, () => {
  const opened: string[] = [];
  const tracer: Tracer = {
    serve: () => ({ context: undefined }),
    inSpan: (name, _attributes, fn) => {
      opened.push(name);
      return fn();
    },
    inRemoteChildSpans: (_spans: readonly RemoteChildSpan[], fn) => fn(),
    traceparent: () => TRACEPARENT,
    ids: () => undefined,
    annotate: () => undefined,
    flush: async () => undefined,
  };
  beforeAll(() => installTracer(tracer));

  it('appends in an `append <category>` span and records its traceparent in each event, keeping the metadata', async () => {
    const appended: NewEvent[] = [];
    const inner = {
      kind: 'postgres',
      appendToStream: async (_streamId: string, events: readonly NewEvent[]) => {
        appended.push(...events);
        return { nextExpectedRevision: 0n, position: { commit: 1n, prepare: 1n } };
      },
    } as unknown as EventStore;
    const sut = new TracedEventStore(inner);
    await sut.appendToStream(`request-0x${'ab'.repeat(32)}`, [
      { id: 'e1', type: 'RequestQuoted', data: {}, metadata: { command: 'RecordQuote' } },
    ]);
    expect(opened).toEqual(['append request']);
    expect(appended[0].metadata).toEqual({ command: 'RecordQuote', traceparent: TRACEPARENT });
    expect(sut.kind).toBe('postgres');
  });
});
