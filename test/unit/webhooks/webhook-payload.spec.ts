import {
  evolveRequestStatus,
  type RequestStatusState,
} from '../../../projections/request-status/request-status.projection.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import { REQUEST_STATUSES } from '../../../src/requests/domain/request-status.js';
import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import {
  buildStatusPayload,
  serializePayload,
  type StatusUpdatedPayload,
} from '../../../src/webhooks/index.js';
import { statusChanges } from '../../../src/webhooks/outbox/status-changes.js';
import { recordAfter, recordedEvents } from '../../support/request-events.js';
import { later, scenario } from '../status/request-scenarios.js';

const N = 12;
const quote = sampleQuote(N, { referrer: 'acme-wallet' });
const paths = scenario(quote, N);
const EVENT_AT = Date.parse('2026-11-01T00:00:30.123Z');

const events = (commands: RequestCommand[]) => recordedEvents(commands, `request-${quote.requestId}`);
const recordOf = (commands: RequestCommand[]) => recordAfter(commands, `request-${quote.requestId}`);
const statusStateAfter = (commands: RequestCommand[]): RequestStatusState =>
  events(commands).reduce<RequestStatusState | null>(evolveRequestStatus, null)!;
/** As the webhook consumer builds it: the shared record plus the failure details the status row keeps. */
const payloadAfter = (commands: RequestCommand[]): StatusUpdatedPayload => {
  const { record, failureDetails } = statusStateAfter(commands);
  return buildStatusPayload(record, { eventTimestampMs: EVENT_AT, failureDetails });
};

const refundWithoutReason: RequestCommand[] = [
  paths.recordQuote,
  paths.detect,
  paths.confirm,
  paths.submitRefund, // reason: null
  paths.refundSuccess,
];
const expiredInFlight: RequestCommand[] = [
  paths.recordQuote,
  paths.detect,
  paths.confirm,
  { type: 'ExpireRequest', data: { at: quote.fillDeadline } },
];

describe('buildStatusPayload', () => {
  it('renders a fresh quote exactly as the spec table has it (field for field, in order)', () => {
    const payload = buildStatusPayload(recordOf([paths.recordQuote]), { eventTimestampMs: EVENT_AT });
    expect(payload).toEqual({
      event: 'request.status.updated',
      timestamp: EVENT_AT,
      data: {
        status: 'waiting',
        inTxHashes: [],
        txHashes: [],
        updatedAt: Date.parse(quote.quotedAt),
        originChainId: 31337,
        destinationChainId: 31338,
        depositAddress: null,
        requestId: quote.requestId,
        referrer: 'acme-wallet',
        details: null,
        failReason: 'N/A',
        refundFailReason: 'N/A',
      },
    });
    expect(Object.keys(payload)).toEqual(['event', 'timestamp', 'data']);
    expect(Object.keys(payload.data)).toEqual([
      'status',
      'inTxHashes',
      'txHashes',
      'updatedAt',
      'originChainId',
      'destinationChainId',
      'depositAddress',
      'requestId',
      'referrer',
      'details',
      'failReason',
      'refundFailReason',
    ]);
  });

  it('keeps timestamp (when the event was recorded) apart from data.updatedAt (when the fact happened)', () => {
    const payload = buildStatusPayload(recordOf(paths.success.slice(0, 3)), {
      eventTimestampMs: EVENT_AT,
    });
    expect(payload.timestamp).toBe(EVENT_AT);
    expect(payload.data.updatedAt).toBe(Date.parse(later(quote.quotedAt, 7))); // confirmedAt
  });

  it('covers every status, with deposits in inTxHashes and fills then refunds in txHashes', () => {
    const byStatus: Record<string, StatusUpdatedPayload> = {
      waiting: payloadAfter(paths.success.slice(0, 2)),
      depositing: payloadAfter(paths.depositing),
      pending: payloadAfter(paths.success.slice(0, 3)),
      submitted: payloadAfter(paths.success.slice(0, 4)),
      success: payloadAfter(paths.success),
      failure: payloadAfter(paths.refunded.slice(0, 5)),
      refund: payloadAfter(paths.refunded),
    };
    expect(Object.keys(byStatus).sort()).toEqual([...REQUEST_STATUSES].sort());
    for (const [status, payload] of Object.entries(byStatus)) expect(payload.data.status).toBe(status);

    expect(byStatus.waiting.data).toMatchObject({ inTxHashes: [paths.depositHash], txHashes: [] });
    expect(byStatus.depositing.data).toMatchObject({ inTxHashes: [paths.depositHash], txHashes: [] });
    expect(byStatus.pending.data).toMatchObject({ inTxHashes: [paths.depositHash], txHashes: [] });
    expect(byStatus.submitted.data).toMatchObject({
      inTxHashes: [paths.depositHash],
      txHashes: [paths.fillHash],
    });
    expect(byStatus.success.data).toMatchObject({
      inTxHashes: [paths.depositHash],
      txHashes: [paths.fillHash],
      updatedAt: Date.parse(later(quote.quotedAt, 15)),
      failReason: 'N/A',
      refundFailReason: 'N/A',
      details: null,
    });
    expect(byStatus.failure.data).toMatchObject({
      txHashes: [paths.fillHash],
      failReason: 'FILL_REVERTED',
      refundFailReason: 'N/A',
      details: 'execution reverted: output below minimum',
    });
    expect(byStatus.refund.data).toMatchObject({
      inTxHashes: [paths.depositHash],
      txHashes: [paths.fillHash, paths.refundHash],
      failReason: 'FILL_REVERTED',
      refundFailReason: 'N/A',
    });
    for (const status of ['waiting', 'depositing', 'pending', 'submitted', 'success']) {
      expect(byStatus[status].data.failReason).toBe('N/A');
      expect(byStatus[status].data.refundFailReason).toBe('N/A');
    }
  });

  it('says UNKNOWN on refund when no reason was recorded', () => {
    expect(recordOf(refundWithoutReason).v3.data.failReason).toBeNull();
    expect(payloadAfter(refundWithoutReason).data).toMatchObject({
      status: 'refund',
      failReason: 'UNKNOWN',
      refundFailReason: 'N/A',
      txHashes: [paths.refundHash],
    });
  });

  it('keeps N/A while pending even when a refund leg already carries a reason', () => {
    const submitRefund = {
      ...paths.submitRefund,
      data: { ...(paths.submitRefund.data as object), reason: 'SOLVER_CAPACITY_EXCEEDED' },
    } as RequestCommand;
    const commands = [paths.recordQuote, paths.detect, paths.confirm, submitRefund];
    expect(recordOf(commands).v3.data.failReason).toBe('SOLVER_CAPACITY_EXCEEDED');
    expect(payloadAfter(commands).data).toMatchObject({ status: 'pending', failReason: 'N/A' });
    expect(payloadAfter([...commands, paths.refundSuccess]).data).toMatchObject({
      status: 'refund',
      failReason: 'SOLVER_CAPACITY_EXCEEDED',
    });
  });

  it('carries both reasons when the refund leg failed too', () => {
    expect(payloadAfter(paths.refundFailed).data).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: 'REFUND_REVERTED',
    });
  });

  it('announces a refund skipped as dust while the status stays failure, once, carrying the reason (decision 0032)', () => {
    const stream = events(paths.refundSkipped);
    const announced = statusChanges(stream, () => true);
    expect(announced.slice(-2).map((change) => [change.event.type, change.record.v3.status])).toEqual([
      ['FillFailed', 'failure'],
      ['RefundSkipped', 'failure'],
    ]);
    expect(announced.filter((change) => change.event.type === 'RefundSkipped')).toHaveLength(1);
    expect(payloadAfter(paths.refundSkipped).data).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      txHashes: [paths.fillHash],
    });
  });

  it('carries the recorded reason of an expired in-flight request', () => {
    expect(payloadAfter(expiredInFlight).data).toMatchObject({
      status: 'failure',
      failReason: 'FILL_DEADLINE_EXPIRED',
      refundFailReason: 'N/A',
      details: null,
    });
  });

  it('explains an expired quote in details while it stays waiting with N/A', () => {
    const payload = payloadAfter(paths.expired);
    expect(payload.data).toMatchObject({ status: 'waiting', failReason: 'N/A' });
    expect(payload.data.details).toMatch(/^Quote expired \(QUOTE_EXPIRED\)/);
  });

  it('has null details without failure details (the record alone)', () => {
    const record = recordOf(paths.refunded.slice(0, 5));
    expect(buildStatusPayload(record, { eventTimestampMs: EVENT_AT }).data.details).toBeNull();
  });

  it('renders the deposit address as {address, depositAddressType, depositor, depositTxHash}', () => {
    const withAddress = sampleQuote(N, { withDepositAddress: true });
    const addressPaths = scenario(withAddress, N);
    const before = buildStatusPayload(recordOf([addressPaths.recordQuote]), {
      eventTimestampMs: EVENT_AT,
    });
    const address = withAddress.depositAddress!;
    expect(before.data.depositAddress).toEqual({
      address: address.address,
      depositAddressType: 'strict',
      depositor: address.depositor,
      depositTxHash: null,
    });
    expect(before.data.referrer).toBeNull();
    const after = buildStatusPayload(recordOf(addressPaths.success.slice(0, 3)), {
      eventTimestampMs: EVENT_AT,
    });
    // Without a DepositAddressFunded (a transfer the watcher saw), the confirmed deposit names them.
    expect(after.data.depositAddress).toEqual({
      address: address.address,
      depositAddressType: 'strict',
      depositor: withAddress.user, // the depositor of the confirmed deposit (sampleLifecycle's)
      depositTxHash: addressPaths.depositHash,
    });
    expect(Object.keys(after.data.depositAddress!)).toEqual([
      'address',
      'depositAddressType',
      'depositor',
      'depositTxHash',
    ]);
  });

  it('refuses a timestamp that is not unix milliseconds', () => {
    const record = recordOf([paths.recordQuote]);
    expect(() => buildStatusPayload(record, { eventTimestampMs: 1.5 })).toThrow(RangeError);
    expect(() => buildStatusPayload(record, { eventTimestampMs: NaN })).toThrow(RangeError);
  });
});

describe('serializePayload', () => {
  const payload = payloadAfter(paths.refunded);

  it('writes compact JSON that parses back to the payload', () => {
    const body = serializePayload(payload);
    expect(JSON.parse(body)).toEqual(payload);
    expect(body).not.toMatch(/\n|": /);
    expect(body.startsWith('{"event":"request.status.updated","timestamp":')).toBe(true);
  });

  it('writes the same bytes whatever order the keys come in (e.g. read back from jsonb)', () => {
    const shuffle = (value: unknown): unknown =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.entries(value)
              .reverse()
              .map(([k, v]) => [k, shuffle(v)]),
          )
        : value;
    const withAddress = sampleQuote(N, { withDepositAddress: true });
    const other = payloadAfter(scenario(withAddress, N).success);
    for (const p of [payload, other]) {
      const reordered = shuffle(p) as StatusUpdatedPayload;
      expect(Object.keys(reordered)[0]).toBe('data');
      expect(serializePayload(reordered)).toBe(serializePayload(p));
    }
  });

  it('gives a known body for a known request', () => {
    const record = recordOf([paths.recordQuote]);
    expect(serializePayload(buildStatusPayload(record, { eventTimestampMs: 1793505600123 }))).toBe(
      `{"event":"request.status.updated","timestamp":1793505600123,"data":{"status":"waiting","inTxHashes":[],` +
        `"txHashes":[],"updatedAt":${Date.parse(quote.quotedAt)},"originChainId":31337,"destinationChainId":31338,` +
        `"depositAddress":null,"requestId":"${quote.requestId}","referrer":"acme-wallet","details":null,` +
        `"failReason":"N/A","refundFailReason":"N/A"}}`,
    );
  });
});
