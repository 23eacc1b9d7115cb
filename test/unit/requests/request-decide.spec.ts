import { eventTypeOf } from '../../../src/event-store/domain-event.js';
import {
  decide,
  type RequestCommand,
  RequestDomainError,
} from '../../../src/requests/domain/request-decide.js';
import {
  evolve,
  initialRequestState,
  type RequestState,
} from '../../../src/requests/domain/request-state.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';

/** given(commands already handled).when(command).then(event types) / .thenThrows(code) */
function given(...history: RequestCommand[]) {
  const state = history.reduce<RequestState>(
    (s, command) => decide(s, command).reduce((acc, { event }) => evolve(acc, event), s),
    initialRequestState,
  );
  return {
    state,
    when: (command: RequestCommand) => ({
      then: (...types: string[]) => {
        const decided = decide(state, command);
        expect(decided.map(({ event }) => eventTypeOf(event).type)).toEqual(types);
        return decided;
      },
      thenThrows: (code: string) => {
        expect(() => decide(state, command)).toThrow(expect.objectContaining({ code }) as unknown as Error);
        try {
          decide(state, command);
        } catch (error) {
          expect(error).toBeInstanceOf(RequestDomainError);
        }
      },
    }),
  };
}

const quote = sampleQuote(7);
const [quoted, detect, confirm, submitFill, fillSuccess] = sampleLifecycle(quote, 7);
const expireAt = (at: string): RequestCommand => ({ type: 'ExpireRequest', data: { at } });
const plus = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();
/** The fill failing on a short deposit: the request fails, and its refund is due. */
const failFill: RequestCommand = {
  type: 'RecordFillFailure',
  data: {
    failReason: 'DEPOSIT_AMOUNT_TOO_LOW',
    failedTxHash: null,
    failedTxBlockNumber: null,
    failedCallData: null,
    details: null,
    failedAt: '2026-11-01T00:01:00.000Z',
  },
};

describe('Request decisions', () => {
  it('records the same chain fact once, with an id derived from it', () => {
    const [first] = given(quoted).when(detect).then('DepositDetected');
    expect(first.id).toBe(
      `${quote.requestId}:deposit-detected:${quote.originChainId}:${(detect.data as { txHash: string }).txHash}:*`,
    );
    given(quoted, detect).when(detect).then();
    given(quoted, detect, confirm).when(confirm).then();
    given(quoted, detect, confirm).when(detect).then();
    given(quoted, detect, confirm, submitFill).when(submitFill).then();
    given(quoted, detect, confirm, submitFill, fillSuccess).when(fillSuccess).then();
  });

  it('treats transaction hashes case-insensitively', () => {
    const upper = {
      ...detect,
      data: {
        ...(detect.data as object),
        txHash: (detect.data as { txHash: string }).txHash.toUpperCase().replace('0X', '0x'),
      },
    } as RequestCommand;
    given(quoted, detect).when(upper).then();
  });

  it('refuses a fill success for another transaction than the submitted fill', () => {
    const other = {
      ...fillSuccess,
      data: { ...(fillSuccess.data as object), txHash: '0x' + '9'.repeat(64) },
    } as RequestCommand;
    given(quoted, detect, confirm, submitFill).when(other).thenThrows('FILL_MISMATCH');
  });

  it('refuses anything but a quote on a request that was never quoted, and a second quote', () => {
    given().when(detect).thenThrows('REQUEST_NOT_FOUND');
    given(quoted).when(quoted).thenThrows('REQUEST_ALREADY_EXISTS');
  });

  describe('deadlines', () => {
    it('expires a quote with no deposit only after quoteExpiresAt, silently (still waiting)', () => {
      given(quoted)
        .when(expireAt(plus(quote.quoteExpiresAt, -1)))
        .thenThrows('DEADLINE_NOT_REACHED');
      const [expired] = given(quoted).when(expireAt(quote.quoteExpiresAt)).then('RequestExpired');
      expect(expired.event).toMatchObject({ reason: 'QUOTE_EXPIRED' });
      const after = given(quoted, expireAt(quote.quoteExpiresAt));
      expect(after.state).toMatchObject({ status: 'waiting', expired: true, expiredReason: 'QUOTE_EXPIRED' });
      after.when(expireAt(plus(quote.quoteExpiresAt, 60))).then();
    });

    it('times out a deposit seen but never final, counting from when it was seen', () => {
      const seen = (detect.data as { detectedAt: string }).detectedAt;
      given(quoted, detect).when(expireAt(quote.quoteExpiresAt)).thenThrows('DEADLINE_NOT_REACHED');
      const [expired] = given(quoted, detect)
        .when(expireAt(plus(seen, quote.depositConfirmationTimeoutSeconds)))
        .then('RequestExpired');
      expect(expired.event).toMatchObject({ reason: 'DEPOSIT_CONFIRMATION_TIMEOUT' });
    });

    it('fails a submitted deposit that never confirms', () => {
      const submit: RequestCommand = {
        type: 'SubmitDeposit',
        data: { via: 'permit', chainId: 31337, txHash: null, submittedAt: quote.quotedAt },
      };
      const at = plus(quote.quotedAt, quote.depositConfirmationTimeoutSeconds);
      const after = given(quoted, submit, expireAt(at));
      expect(after.state).toMatchObject({
        status: 'failure',
        failReason: 'DEPOSIT_CONFIRMATION_TIMEOUT',
        deposit: null,
      });
    });

    it('fails a request with funds in flight after the fill deadline, keeping its deposit for the refund', () => {
      given(quoted, detect, confirm)
        .when(expireAt(plus(quote.fillDeadline, -1)))
        .thenThrows('DEADLINE_NOT_REACHED');
      const after = given(quoted, detect, confirm, expireAt(quote.fillDeadline));
      expect(after.state).toMatchObject({ status: 'failure', failReason: 'FILL_DEADLINE_EXPIRED' });
      expect((after.state as { deposit: string }).deposit).toContain(':0x01');
    });

    it('never expires a submitted fill: it may still mine (the solver cancels it, then records the failure)', () => {
      given(quoted, detect, confirm, submitFill)
        .when(expireAt(plus(quote.fillDeadline, 3600)))
        .thenThrows('ILLEGAL_TRANSITION');
    });

    it('refuses a fill submitted at or after the fill deadline (checked in the same append that reserves it)', () => {
      const late = {
        ...submitFill,
        data: { ...(submitFill.data as object), submittedAt: quote.fillDeadline },
      } as RequestCommand;
      given(quoted, detect, confirm).when(late).thenThrows('DEADLINE_PASSED');
      // And once the deadline expired the request, no fill can be submitted at all.
      given(quoted, detect, confirm, expireAt(quote.fillDeadline))
        .when(submitFill)
        .thenThrows('ILLEGAL_TRANSITION');
    });
  });

  describe('deposit rules', () => {
    const deposit = (
      changes: Record<string, unknown>,
      type: 'ConfirmDeposit' | 'DetectDeposit' = 'ConfirmDeposit',
    ) =>
      ({
        type,
        data: {
          ...((type === 'ConfirmDeposit' ? confirm : detect).data as object),
          logIndex: 0,
          ...changes,
        },
      }) as RequestCommand;
    const refusal = (command: RequestCommand) => {
      try {
        decide(given(quoted).state, command);
      } catch (error) {
        return { code: (error as RequestDomainError).code, mismatch: (error as RequestDomainError).mismatch };
      }
      return null;
    };

    it.each([
      ['on another chain', { chainId: quote.destinationChainId }, 'WRONG_CHAIN'],
      [
        'into another contract',
        { depository: '0x000000000000000000000000000000000000bEEF' },
        'WRONG_DEPOSITORY',
      ],
      ['in another currency', { currency: '0x000000000000000000000000000000000000dEaD' }, 'WRONG_CURRENCY'],
    ])(
      'refuses a deposit %s (seen or final): it is not the request’s, it is returned',
      (_, changes, mismatch) => {
        expect(refusal(deposit(changes))).toEqual({ code: 'DEPOSIT_MISMATCH', mismatch });
        expect(refusal(deposit(changes, 'DetectDeposit'))).toEqual({ code: 'DEPOSIT_MISMATCH', mismatch });
      },
    );

    it('refuses a short deposit on another chain too (never "refunded" where it was not made)', () => {
      const short = (BigInt(quote.currencyIn.amount) - 1n).toString();
      expect(refusal(deposit({ chainId: quote.destinationChainId, amount: short }))).toMatchObject({
        mismatch: 'WRONG_CHAIN',
      });
    });

    it('confirms a short deposit and fails it at once (DEPOSIT_AMOUNT_TOO_LOW): the refund follows', () => {
      const short = (BigInt(quote.currencyIn.amount) - 1n).toString();
      const [, failed] = given(quoted)
        .when(deposit({ amount: short }))
        .then('DepositConfirmed', 'FillFailed');
      expect(failed.event).toMatchObject({ failReason: 'DEPOSIT_AMOUNT_TOO_LOW' });
      given(quoted)
        .when(deposit({ amount: quote.currencyIn.amount }))
        .then('DepositConfirmed');
      const more = (BigInt(quote.currencyIn.amount) + 1n).toString();
      given(quoted)
        .when(deposit({ amount: more }))
        .then('DepositConfirmed');
    });

    it('confirms a deposit made after the quote expired and fails it (DEPOSIT_AFTER_EXPIRY)', () => {
      const late = Date.parse(quote.quoteExpiresAt) / 1000 + 1;
      const [, failed] = given(quoted)
        .when(deposit({ timestamp: late }))
        .then('DepositConfirmed', 'FillFailed');
      expect(failed.event).toMatchObject({ failReason: 'DEPOSIT_AFTER_EXPIRY' });
      given(quoted, expireAt(quote.quoteExpiresAt)).when(deposit({})).then('DepositConfirmed', 'FillFailed');
    });

    it('tells two deposit logs of one transaction apart: the second is refused (and returned)', () => {
      const first = deposit({ logIndex: 3 });
      const second = deposit({ logIndex: 4 });
      given(quoted, first).when(first).then();
      given(quoted, first).when(second).thenThrows('ILLEGAL_TRANSITION');
    });

    it('takes a deposit recorded before log indexes were kept as the same deposit when it is reported again', () => {
      const old = confirm; // no logIndex
      given(quoted, old)
        .when(deposit({ logIndex: 7 }))
        .then();
    });
  });

  it('tells a refund that could not be sent once, however many retries fail the same way; each dead refund transaction once', () => {
    const refundFailure = (refundFailReason: string, failedTxHash: string | null): RequestCommand => ({
      type: 'RecordRefundFailure',
      data: { refundFailReason, failedTxHash, failedAt: '2026-11-01T00:02:00.000Z' },
    });
    const notSent = refundFailure('REFUND_NOT_SENT', null);
    given(quoted, detect, confirm, failFill).when(notSent).then('RefundFailed');
    given(quoted, detect, confirm, failFill, notSent).when(notSent).then();
    const reverted = refundFailure('REFUND_REVERTED', `0x${'ee'.repeat(32)}`);
    given(quoted, detect, confirm, failFill, notSent).when(reverted).then('RefundFailed');
    given(quoted, detect, confirm, failFill, reverted).when(reverted).then();
    // A refund voided unsent when its job gave up, after the first failure was told: that transaction is told too.
    const voided = refundFailure('REFUND_NOT_SENT', `0x${'dd'.repeat(32)}`);
    given(quoted, detect, confirm, failFill, notSent).when(voided).then('RefundFailed');
    given(quoted, detect, confirm, failFill, notSent, voided).when(voided).then();
    given(quoted, detect, confirm, failFill, notSent, voided).when(notSent).then();
  });

  describe('a refund skipped as dust (AMOUNT_TOO_LOW_TO_REFUND)', () => {
    const skip: RequestCommand = {
      type: 'SkipRefund',
      data: {
        refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
        chainId: quote.originChainId,
        amount: '1',
        currency: quote.currencyIn.currency.address,
        skippedAt: '2026-11-01T00:02:00.000Z',
      },
    };
    const refund = { chainId: quote.originChainId, txHash: `0x${'ab'.repeat(32)}`, amount: '1' };
    const submitRefund: RequestCommand = {
      type: 'SubmitRefund',
      data: {
        ...refund,
        currency: quote.currencyIn.currency.address,
        recipient: quote.user,
        reason: null,
        submittedAt: '2026-11-01T00:03:00.000Z',
      },
    };
    const refundSuccess: RequestCommand = {
      type: 'RecordRefundSuccess',
      data: {
        ...refund,
        block: 9,
        timestamp: 1_790_000_000,
        fee: '1',
        currency: quote.currencyIn.currency.address,
        recipient: quote.user,
        refundedAt: '2026-11-01T00:03:00.000Z',
      },
    };
    const notSent: RequestCommand = {
      type: 'RecordRefundFailure',
      data: { refundFailReason: 'REFUND_NOT_SENT', failedTxHash: null, failedAt: '2026-11-01T00:04:00.000Z' },
    };

    it('keeps the request failed with its reason, and records the refund-leg reason once, under one id', () => {
      const [decided] = given(quoted, detect, confirm, failFill).when(skip).then('RefundSkipped');
      expect(decided.id).toBe(`${quote.requestId}:refund-skipped`);
      expect(given(quoted, detect, confirm, failFill, skip).state).toMatchObject({
        status: 'failure',
        failReason: 'DEPOSIT_AMOUNT_TOO_LOW',
        refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
        refundSkipped: true,
      });
      given(quoted, detect, confirm, failFill, skip).when(skip).then();
    });

    it('takes no refund after it: a refund journaled before the skip is refused (and abandoned unsent)', () => {
      given(quoted, detect, confirm, failFill, skip).when(submitRefund).thenThrows('ILLEGAL_TRANSITION');
      given(quoted, detect, confirm, failFill, skip).when(refundSuccess).thenThrows('ILLEGAL_TRANSITION');
      // A late "not sent" of an attempt from before the skip does not overwrite the reason.
      given(quoted, detect, confirm, failFill, skip).when(notSent).then();
    });

    it('is refused once a refund was submitted (it may still land), and before the request failed', () => {
      given(quoted, detect, confirm, failFill, submitRefund).when(skip).thenThrows('ILLEGAL_TRANSITION');
      given(quoted, detect, confirm).when(skip).thenThrows('ILLEGAL_TRANSITION');
    });
  });

  describe('a deposit submitted through the execute path (SubmitDeposit, the relayer’s permit)', () => {
    const submitted = (txHash: string): RequestCommand => ({
      type: 'SubmitDeposit',
      data: { via: 'permit', chainId: quote.originChainId, txHash, submittedAt: quote.quotedAt },
    });
    const ours = submitted('0x' + 'a1'.repeat(32));
    const another = submitted('0x' + 'b2'.repeat(32));

    it('is taken on a request with nothing after its quote, and once only for the same transaction', () => {
      given(quoted).when(ours).then('DepositSubmitted');
      given(quoted, ours).when(ours).then();
    });

    it('is refused once a deposit was made directly, seen and not yet final: the relayer would send a second one', () => {
      given(quoted, detect).when(ours).thenThrows('DEPOSIT_ALREADY_MADE');
    });

    it('is refused once the quote expired: its sponsorship hold may have gone back, so nothing may be filled after it', () => {
      given(quoted, expireAt(quote.quoteExpiresAt)).when(ours).thenThrows('DEADLINE_PASSED');
    });

    it('is refused once a deposit is confirmed, or once another transaction was submitted', () => {
      given(quoted, detect, confirm).when(ours).thenThrows('ILLEGAL_TRANSITION');
      given(quoted, ours).when(another).thenThrows('ILLEGAL_TRANSITION');
    });

    it('is still the same fact once its own deposit was seen', () => {
      const seen = {
        ...detect,
        data: { ...(detect.data as object), txHash: (ours.data as { txHash: string }).txHash },
      } as RequestCommand;
      given(quoted, ours, seen).when(ours).then();
    });
  });

  it('refuses to evolve an event the table does not allow (a corrupted stream)', () => {
    const [event] = decide(given(quoted, detect, confirm, submitFill).state, fillSuccess);
    expect(() => evolve(given(quoted).state, event.event)).toThrow(
      'Stream corrupted: FillSucceeded cannot follow status waiting',
    );
  });
});
