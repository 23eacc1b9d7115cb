import {
  evolveRequestStatus,
  requestIdOfStream,
  requestStatusProjection,
  type RequestStatusState,
} from '../../../projections/request-status/request-status.projection.js';
import { toStatusBody } from '../../../projections/request-status/status-body.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { recordedEvents } from '../../support/request-events.js';
import { scenario } from './request-scenarios.js';

const quote = sampleQuote(4);
const paths = scenario(quote, 4);
const statusAfter = (commands: RequestCommand[]) =>
  toStatusBody(
    recordedEvents(commands, `request-${quote.requestId}`).reduce<RequestStatusState | null>(
      evolveRequestStatus,
      null,
    )!,
  );

describe(toStatusBody.name, () => {
  it('answers a fresh quote with waiting, both chain ids, and the quote time in unix ms', () => {
    expect(statusAfter([paths.recordQuote])).toEqual({
      status: 'waiting',
      details: null,
      inTxHashes: [],
      txHashes: [],
      updatedAt: Date.parse(quote.quotedAt),
      originChainId: 31337,
      destinationChainId: 31338,
      quoteCreatedAt: Date.parse(quote.quotedAt),
      failReason: null,
      refundFailReason: null,
    });
  });

  it('follows a successful request: deposit hashes in, fill hashes out, null reasons (v3)', () => {
    expect(statusAfter(paths.success.slice(0, 2))).toMatchObject({
      status: 'waiting',
      inTxHashes: [paths.depositHash],
    });
    expect(statusAfter(paths.success.slice(0, 3)).status).toBe('pending');
    expect(statusAfter(paths.success.slice(0, 4))).toMatchObject({
      status: 'submitted',
      txHashes: [paths.fillHash],
    });
    const done = statusAfter(paths.success);
    expect(done).toMatchObject({
      status: 'success',
      inTxHashes: [paths.depositHash],
      txHashes: [paths.fillHash],
      updatedAt: Date.parse(quote.quotedAt) + 15_000,
      failReason: null,
      refundFailReason: null,
      details: null,
    });
  });

  it('reports a failed fill with its reason and decoded details, then the refund', () => {
    expect(statusAfter(paths.refunded.slice(0, 5))).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: null,
      details: 'execution reverted: output below minimum',
    });
    expect(statusAfter(paths.refunded)).toMatchObject({
      status: 'refund',
      failReason: 'FILL_REVERTED',
      txHashes: [paths.fillHash, paths.refundHash],
    });
  });

  it('reports a failed refund with both reasons', () => {
    expect(statusAfter(paths.refundFailed)).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: 'REFUND_REVERTED',
    });
  });

  it('reports a refund skipped as dust: still failure, both reasons, no refund transaction, updated when skipped', () => {
    expect(statusAfter(paths.refundSkipped)).toMatchObject({
      status: 'failure',
      failReason: 'FILL_REVERTED',
      refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
      txHashes: [paths.fillHash],
      updatedAt: Date.parse((paths.skipRefund.data as { skippedAt: string }).skippedAt),
    });
  });

  it('keeps an expired quote waiting and says why in details', () => {
    const body = statusAfter(paths.expired);
    expect(body.status).toBe('waiting');
    expect(body.details).toMatch(/^Quote expired \(QUOTE_EXPIRED\)/);
    expect(body.failReason).toBeNull();
    expect(body.updatedAt).toBe(Date.parse(quote.quoteExpiresAt));
  });

  it('answers depositing for a deposit handed in through the execute API', () => {
    expect(statusAfter(paths.depositing)).toMatchObject({
      status: 'depositing',
      inTxHashes: [paths.depositHash],
    });
    expect(statusAfter([...paths.depositing, paths.confirm]).status).toBe('pending');
  });

  it('names the superseding request in details', () => {
    const successor = `0x${'cd'.repeat(32)}`;
    const body = statusAfter([
      paths.recordQuote,
      { type: 'SupersedeRequest', data: { supersededByRequestId: successor, supersededAt: quote.quotedAt } },
    ]);
    expect(body).toMatchObject({ status: 'waiting', details: expect.stringContaining(successor) });
  });
});

describe('requestStatusProjection', () => {
  it('keeps one row per request stream (keyed by the lower-case id) and ignores other streams', () => {
    const [event] = recordedEvents([paths.recordQuote], `request-${quote.requestId}`);
    expect(requestStatusProjection.keysOf(event)).toEqual([quote.requestId]);
    expect(requestStatusProjection.keysOf({ ...event, streamId: 'app-fee-account-0xabc' })).toEqual([]);
    expect(requestIdOfStream('request-0xab')).toBe('0xab');
  });

  it('stores the rendered answer in its body column, so the endpoint reads one small value', () => {
    const state = recordedEvents(paths.success).reduce<RequestStatusState | null>(evolveRequestStatus, null)!;
    const body = requestStatusProjection.columns.find((column) => column.name === 'body')!;
    expect(body.value(state)).toEqual(toStatusBody(state));
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });
});
