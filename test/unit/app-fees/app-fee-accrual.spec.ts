import { accrualsOf } from '../../../src/app-fees/app-fee-accrual.js';
import type { RecordedEvent } from '../../../src/event-store/event-store.js';

const event = (type: string, streamId: string, data: unknown): RecordedEvent => ({
  streamId,
  revision: 0n,
  position: { commit: 1n, prepare: 1n },
  id: `${streamId}:${type}`,
  type,
  schemaVersion: 1,
  data,
  metadata: {},
  createdAt: new Date('2026-11-25T00:00:00Z'),
});

const fee = (recipient: string, amountUsd: string) => ({
  recipient,
  bps: '10',
  amount: '1',
  amountFormatted: '0.000001',
  amountUsd,
});

describe('accrualsOf', () => {
  it('credits each recipient of a FillSucceeded once, adding up its entries, lowercasing addresses', () => {
    const accruals = accrualsOf([
      event('FillSucceeded', 'request-0xabc', {
        appFees: [fee('0xAA', '0.1'), fee('0xbb', '0.25'), fee('0xaa', '0.000001')],
        completedAt: '2026-11-25T00:00:01.000Z',
      }),
    ]);
    // Where the FillSucceeded sits in the log: each account takes one credit per fill, in log order.
    const source = { commit: '1', prepare: '1' };
    expect(accruals).toEqual([
      {
        address: '0xaa',
        requestId: '0xabc',
        amountUsd: '0.100001',
        accruedAt: '2026-11-25T00:00:01.000Z',
        source,
      },
      {
        address: '0xbb',
        requestId: '0xabc',
        amountUsd: '0.25',
        accruedAt: '2026-11-25T00:00:01.000Z',
        source,
      },
    ]);
  });

  it('credits nothing for failures, refunds, fills without app fees, or events of other streams', () => {
    expect(
      accrualsOf([
        event('FillFailed', 'request-0x1', { failReason: 'X' }),
        event('RefundSucceeded', 'request-0x1', {}),
        event('FillSucceeded', 'request-0x2', { appFees: [], completedAt: '2026-11-25T00:00:00.000Z' }),
        event('FillSucceeded', 'other-0x3', {
          appFees: [fee('0xaa', '1')],
          completedAt: '2026-11-25T00:00:00.000Z',
        }),
      ]),
    ).toEqual([]);
  });
});
