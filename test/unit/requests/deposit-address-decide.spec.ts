import { eventTypeOf } from '../../../src/event-store/domain-event.js';
import {
  decide,
  type RequestCommand,
  RequestDomainError,
} from '../../../src/requests/domain/request-decide.js';
import type { RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import {
  evolve,
  initialRequestState,
  type RequestState,
} from '../../../src/requests/domain/request-state.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';

const quoteOf = (type: 'strict' | 'open'): RequestQuotedData => {
  const quote = sampleQuote(1, { withDepositAddress: true });
  return { ...quote, depositAddress: { ...quote.depositAddress!, type } };
};
const strict = quoteOf('strict');
const quoted = BigInt(strict.protocol.paymentDetails.amount);
const inTime = Math.floor(Date.parse(strict.quoteExpiresAt) / 1000) - 60;
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

const transfer = (n: number, amount: bigint, timestamp = inTime): RequestCommand => ({
  type: 'RecordDepositAddressTransfer',
  data: {
    chainId: strict.originChainId,
    txHash: hash(n),
    block: 10 + n,
    timestamp,
    fee: '21000',
    address: strict.depositAddress!.address,
    depositor: strict.user,
    amount: amount.toString(),
    detectedAt: new Date(timestamp * 1000).toISOString(),
  },
});

function given(commands: RequestCommand[]): RequestState {
  return commands.reduce(
    (state, command) => decide(state, command).reduce((s, { event }) => evolve(s, event), state),
    initialRequestState,
  );
}
const outcome = (state: RequestState, command: RequestCommand) =>
  decide(state, command).map(({ event }) => ({
    type: eventTypeOf(event).type,
    ...(event as unknown as { reason?: string; sweepAmount?: string; surplus?: string }),
  }));

describe('deposit-address transfers (Request aggregate)', () => {
  it('strict: takes exactly the quoted amount before expiry; the sweep amount is the quoted amount', () => {
    const state = given([{ type: 'RecordQuote', data: strict }]);
    expect(outcome(state, transfer(1, quoted))).toMatchObject([
      { type: 'DepositAddressFunded', sweepAmount: quoted.toString(), surplus: '0' },
    ]);
  });

  it.each([
    ['one wei short', quoted - 1n],
    ['one wei over', quoted + 1n],
  ])('strict: refuses %s (DEPOSIT_AMOUNT_MISMATCH), to be given back', (_, amount) => {
    const state = given([{ type: 'RecordQuote', data: strict }]);
    expect(outcome(state, transfer(1, amount))).toMatchObject([
      { type: 'DepositAddressTransferRefused', reason: 'DEPOSIT_AMOUNT_MISMATCH' },
    ]);
  });

  it('open: takes more than quoted, sweeping the quoted amount and giving the surplus back; refuses less', () => {
    const state = given([{ type: 'RecordQuote', data: quoteOf('open') }]);
    expect(outcome(state, transfer(1, quoted + 5n))).toMatchObject([
      { type: 'DepositAddressFunded', sweepAmount: quoted.toString(), surplus: '5' },
    ]);
    expect(outcome(state, transfer(2, quoted - 1n))).toMatchObject([
      { type: 'DepositAddressTransferRefused', reason: 'DEPOSIT_AMOUNT_TOO_LOW' },
    ]);
  });

  it('refuses a transfer made after the quote expired (block time), even when recorded before the sweeper ran', () => {
    const state = given([{ type: 'RecordQuote', data: strict }]);
    const late = Math.floor(Date.parse(strict.quoteExpiresAt) / 1000) + 1;
    expect(outcome(state, transfer(1, quoted, late))).toMatchObject([
      { type: 'DepositAddressTransferRefused', reason: 'DEPOSIT_AFTER_EXPIRY' },
    ]);
    const expired = given([
      { type: 'RecordQuote', data: strict },
      { type: 'ExpireRequest', data: { at: '2030-01-01T00:00:00.000Z' } },
    ]);
    expect(outcome(expired, transfer(2, quoted, late))).toMatchObject([
      { type: 'DepositAddressTransferRefused', reason: 'DEPOSIT_AFTER_EXPIRY' },
    ]);
  });

  it('takes a transfer made in time but recorded after the sweeper flagged the quote expired (deep finality)', () => {
    const expired = given([
      { type: 'RecordQuote', data: strict },
      { type: 'ExpireRequest', data: { at: '2030-01-01T00:00:00.000Z' } },
    ]);
    expect(outcome(expired, transfer(1, quoted))).toMatchObject([{ type: 'DepositAddressFunded' }]);
    // …and its sweep's deposit is filled, not failed as after expiry.
    const funded = given([
      { type: 'RecordQuote', data: strict },
      { type: 'ExpireRequest', data: { at: '2030-01-01T00:00:00.000Z' } },
      transfer(1, quoted),
    ]);
    const [, , confirm] = sampleLifecycle(strict, 1);
    const sweep = {
      ...confirm,
      data: { ...(confirm.data as object), sweptFromDepositAddress: true },
    } as RequestCommand;
    expect(decide(funded, sweep).map(({ event }) => eventTypeOf(event).type)).toEqual(['DepositConfirmed']);
  });

  it('refuses a second transfer after one was taken, and one after the request settled', () => {
    const funded = given([{ type: 'RecordQuote', data: strict }, transfer(1, quoted)]);
    expect(outcome(funded, transfer(2, quoted))).toMatchObject([
      { type: 'DepositAddressTransferRefused', reason: 'REQUEST_CANNOT_TAKE_DEPOSIT' },
    ]);
    const [quote, detect, confirm, submitFill, fillSuccess] = sampleLifecycle(strict, 1);
    const settled = given([quote, detect, confirm, submitFill, fillSuccess]);
    expect(settled.status).toBe('success');
    expect(outcome(settled, transfer(3, quoted))).toMatchObject([
      { type: 'DepositAddressTransferRefused', reason: 'REQUEST_CANNOT_TAKE_DEPOSIT' },
    ]);
  });

  it('refuses another currency (a token sent to the address) whatever the amount: WRONG_CURRENCY', () => {
    const state = given([{ type: 'RecordQuote', data: strict }]);
    const token = {
      ...transfer(1, quoted),
      data: { ...(transfer(1, quoted).data as object), currency: `0x${'e7'.repeat(20)}` },
    } as RequestCommand;
    expect(outcome(state, token)).toMatchObject([
      { type: 'DepositAddressTransferRefused', reason: 'WRONG_CURRENCY' },
    ]);
  });

  it('records each transfer once (the same transaction reported again appends nothing)', () => {
    const funded = given([{ type: 'RecordQuote', data: strict }, transfer(1, quoted)]);
    expect(decide(funded, transfer(1, quoted))).toEqual([]);
    const refused = given([{ type: 'RecordQuote', data: strict }, transfer(1, quoted - 1n)]);
    expect(decide(refused, transfer(1, quoted - 1n))).toEqual([]);
  });

  it('counts the sweep deposit as paid at the transfer: a sweep mined after expiry is still filled', () => {
    const [quote, , confirm] = sampleLifecycle(strict, 1);
    const funded = given([quote, transfer(1, quoted)]);
    const afterExpiry = Math.floor(Date.parse(strict.quoteExpiresAt) / 1000) + 600;
    const sweep = {
      ...confirm,
      data: { ...(confirm.data as object), timestamp: afterExpiry, sweptFromDepositAddress: true },
    } as RequestCommand;
    expect(decide(funded, sweep).map(({ event }) => eventTypeOf(event).type)).toEqual(['DepositConfirmed']);
    // The same deposit made straight into the depository (not through the factory) is judged by its own time.
    const direct = {
      ...confirm,
      data: { ...(confirm.data as object), timestamp: afterExpiry },
    } as RequestCommand;
    expect(
      decide(funded, direct).map(({ event }) => ({ type: eventTypeOf(event).type, ...event })),
    ).toMatchObject([
      { type: 'DepositConfirmed' },
      { type: 'FillFailed', failReason: 'DEPOSIT_AFTER_EXPIRY' },
    ]);
  });

  it('refuses a transfer for a request without a deposit address', () => {
    const state = given([{ type: 'RecordQuote', data: sampleQuote(1) }]);
    expect(() => decide(state, transfer(1, quoted))).toThrow(RequestDomainError);
  });
});
