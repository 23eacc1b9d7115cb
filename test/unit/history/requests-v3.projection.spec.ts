import type { RecordedEvent } from '../../../src/event-store/event-store.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import { requestStreamId } from '../../../src/requests/domain/request.aggregate.js';
import {
  sampleLifecycle,
  sampleQuote,
  sampleRequestId,
} from '../../../src/requests/domain/sample-requests.js';
import type { RequestRecordState } from '../../../projections/requests/request-record-state.js';
import { normalizeHex } from '../../../projections/requests-v3/requests-v3.columns.js';
import { requestsV3Projection as sut } from '../../../projections/requests-v3/requests-v3.projection.js';
import { recordedEvents } from '../../support/request-events.js';

const SVM_RECIPIENT = 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy';

function fold(commands: RequestCommand[], streamId: string): RequestRecordState {
  const events = recordedEvents(commands, streamId);
  let state: RequestRecordState | null = null;
  for (const event of events) {
    const [key] = sut.keysOf(event);
    state = sut.evolve(state, event, key);
  }
  return state!;
}

const columns = (state: RequestRecordState) =>
  Object.fromEntries(sut.columns.map((column) => [column.name, column.value(state)]));

describe('requests-v3 projection', () => {
  const n = 12;
  const requestId = sampleRequestId(n);
  const streamId = requestStreamId(requestId);

  it('keys every event of a request stream by the lower-cased request id, and nothing else', () => {
    const event = { streamId, type: 'FillSubmitted' } as RecordedEvent;
    expect(sut.keysOf(event)).toEqual([requestId.toLowerCase()]);
    expect(sut.keysOf({ ...event, streamId: 'app-fee-account-0xab' })).toEqual([]);
  });

  it('derives the filter and sort columns of a completed request', () => {
    const quote = sampleQuote(n, {
      appFeeBps: 50,
      withDepositAddress: true,
      apiKeyId: 'k1',
      symbolOut: 'ETH',
    });
    const state = fold(sampleLifecycle(quote, n), streamId);
    const row = columns(state);
    expect(row).toMatchObject({
      listed: true,
      status: 'success',
      created_at: quote.quotedAt,
      api_key_id: 'k1',
      user_address: quote.user.toLowerCase(),
      deposit_address: quote.depositAddress!.address.toLowerCase(),
      order_id: quote.protocol.orderId,
      origin_chain_id: 31337,
      destination_chain_id: 31338,
      request_type: 'Crosschain Swap',
      fail_reason: null,
      currency_in_symbol: 'usdc',
      currency_out_symbol: 'eth',
      amount_usd: quote.currencyIn.amountUsd,
      app_fees_amount_usd: quote.fees.app.usd,
      fill_time_seconds: '10.000',
      deposit_block: 1000 + n,
      features: ['app_fees'],
      refund_tx_hashes: [],
    });
    const [deposit] = state.v3.data.inTxs;
    const [fill] = state.v3.data.outTxs;
    expect(row.deposit_tx_hashes).toEqual([deposit.txHash]);
    expect(row.fill_tx_hashes).toEqual([fill.txHash]);
    expect(row.search_terms).toEqual(
      expect.arrayContaining([
        requestId,
        quote.user,
        quote.depositAddress!.address,
        deposit.txHash,
        fill.txHash,
      ]),
    );
  });

  it('keeps a quote that never saw a deposit unlisted, with the quote as its actual route', () => {
    const quote = sampleQuote(n);
    const state = fold([{ type: 'RecordQuote', data: quote }], streamId);
    expect(columns(state)).toMatchObject({ listed: false, status: 'waiting', fill_time_seconds: null });
    expect(state.v3.data.route.actual).toEqual({ ...state.v3.data.route.quoted, rate: quote.rate });
  });

  it('lower-cases EVM hex but keeps case-sensitive addresses of other chains exactly', () => {
    const quote = { ...sampleQuote(n, { destinationChainId: 792703809 }), recipient: SVM_RECIPIENT };
    const row = columns(fold(sampleLifecycle(quote, n).slice(0, 2), streamId));
    expect(row.recipient).toBe(SVM_RECIPIENT);
    expect(row.search_terms).toContain(SVM_RECIPIENT);
    expect(normalizeHex('0xABCdef')).toBe('0xabcdef');
    expect(normalizeHex('0xNotHex')).toBe('0xNotHex');
  });
});
