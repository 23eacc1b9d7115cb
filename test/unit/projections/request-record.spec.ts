import type { RecordedEvent } from '../../../src/event-store/event-store.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { recordedEvents } from '../../support/request-events.js';
import { derivedAmounts, transactionHashes } from '../../../projections/requests/record-derived.js';
import { evolveRequestRecord } from '../../../projections/requests/request-record.js';
import type { RequestRecordState } from '../../../projections/requests/request-record-state.js';

const fold = (events: RecordedEvent[]) =>
  events.reduce<RequestRecordState | null>((state, event) => evolveRequestRecord(state, event), null)!;

describe(evolveRequestRecord.name, () => {
  const quote = sampleQuote(3, { referrer: 'wallet.example', appFeeBps: 50 });
  const lifecycle = sampleLifecycle(quote, 3);

  it('keeps a quote out of the history lists until its first deposit is seen', () => {
    const quoted = fold(recordedEvents(lifecycle.slice(0, 1)));
    expect(quoted.listed).toBe(false);
    expect(quoted.v3.status).toBe('waiting');
    expect(quoted.v3.data.route.actual).toEqual({ ...quoted.v3.data.route.quoted, rate: quote.rate });
    expect(fold(recordedEvents(lifecycle.slice(0, 2))).listed).toBe(true);
  });

  it('records a completed request with its transactions, actual fees and amounts', () => {
    const sut = fold(recordedEvents(lifecycle));
    expect(sut.v3.status).toBe('success');
    expect(sut.v3.data.inTxs.map((tx) => [tx.status, tx.data.kind])).toEqual([['success', 'deposit']]);
    expect(sut.v3.data.outTxs.map((tx) => [tx.status, tx.data.kind])).toEqual([['success', 'fill']]);
    expect(sut.v3.protocol.deposit.origin.transactionId).toBe(sut.v3.data.inTxs[0].txHash);
    expect(sut.v3.protocol.settlement.destination.fills).toEqual([
      { chainId: 31338, transactionId: sut.v3.data.outTxs[0].txHash },
    ]);
    expect(sut.v3.data.fees.actual).toEqual(quote.fees);
    expect(sut.v3.data.appFees.actual).toHaveLength(1);
    const amounts = derivedAmounts(sut.v3);
    expect(amounts.deposited.amount).toBe(quote.currencyIn.amount);
    // What moved onchain has no slippage left: its minimumAmount is the amount (the quote's was the worst case).
    expect(amounts.deposited.minimumAmount).toBe(amounts.deposited.amount);
    expect(amounts.received.minimumAmount).toEqual(expect.stringMatching(/^[0-9]+$/));
    expect(amounts.received.amount).toBe(quote.currencyOut.amount);
    expect(sut.v3.data.failReason).toBeNull();
    expect(sut.filledAtMs! - sut.depositSeenAtMs!).toBe(10_000);
    expect(transactionHashes(sut)).toHaveLength(2);
    expect(JSON.parse(JSON.stringify(sut))).toEqual(sut);
  });
});
