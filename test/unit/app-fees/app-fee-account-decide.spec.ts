import { eventTypeOf } from '../../../src/event-store/domain-event.js';
import {
  type AppFeeAccountCommand,
  AppFeeDomainError,
  type ClaimPayoutTerms,
  decide,
  openClaim,
} from '../../../src/app-fees/domain/app-fee-account-decide.js';
import { type AppFeeClaimOpenedData } from '../../../src/app-fees/domain/app-fee-account-events.js';
import {
  type AppFeeAccountState,
  availableBalance,
  evolve,
  heldTotal,
  initialAppFeeAccountState,
  type LogMark,
} from '../../../src/app-fees/domain/app-fee-account-state.js';

const ADDRESS = '0x00000000000000000000000000000000000000aa';
const T0 = '2026-11-25T03:00:00.000Z';
const T1 = '2026-11-25T03:05:00.000Z';

const fold = (state: AppFeeAccountState, command: AppFeeAccountCommand) =>
  decide(state, command, ADDRESS).reduce((acc, { event }) => evolve(acc, event), state);

/** given(commands already handled).when(command).then(event types) / .thenThrows(code) */
function given(...history: AppFeeAccountCommand[]) {
  const state = history.reduce(fold, initialAppFeeAccountState);
  return {
    state,
    when: (command: AppFeeAccountCommand) => ({
      then: (...types: string[]) => {
        const decided = decide(state, command, ADDRESS);
        expect(decided.map(({ event }) => eventTypeOf(event).type)).toEqual(types);
        return { decided, after: fold(state, command) };
      },
      thenThrows: (code: string) => {
        let thrown: unknown;
        try {
          decide(state, command, ADDRESS);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(AppFeeDomainError);
        expect((thrown as AppFeeDomainError).code).toBe(code);
      },
    }),
  };
}

/** Each request's fill sits at its own place in the log, in the order the requests are first named. */
const fills = new Map<string, LogMark>();
const fillOf = (requestId: string): LogMark => {
  if (!fills.has(requestId)) fills.set(requestId, { commit: '7', prepare: String(100 + fills.size) });
  return fills.get(requestId)!;
};
const accrue = (requestId: string, amount: string): AppFeeAccountCommand => ({
  type: 'AccrueAppFee',
  data: { requestId, amount, amountUsd: amount, usdcPrice: '1', accruedAt: T0, source: fillOf(requestId) },
});
const base: ClaimPayoutTerms = {
  chainId: 31338,
  currency: '0xusdc',
  recipient: ADDRESS,
  fee: 0n,
  conversion: null,
};
/** A claim as `POST /app-fees/{address}/claim` opens it (its own stream): what its signature reserves under. */
const opened = (claimId: string, terms = base, expiresAt = T1): AppFeeClaimOpenedData => ({
  claimId,
  address: ADDRESS,
  amount: '0',
  chainId: terms.chainId,
  currency: terms.currency,
  recipient: terms.recipient,
  payoutAmount: '0',
  fee: terms.fee.toString(),
  conversion: terms.conversion,
  openedAt: T0,
  expiresAt,
});
const authorize = (claimId: string, at = T0, terms = base, expiresAt = T1): AppFeeAccountCommand => ({
  type: 'AuthorizeClaim',
  data: { claimId, signature: '0xsig', at, opened: opened(claimId, terms, expiresAt) },
});
/** Opening on a state: the checks of `POST …/claim` (nothing is decided on the account). */
const open = (state: AppFeeAccountState, claimId: string, terms = base) =>
  openClaim(state, { claimId, terms, at: T0, expiresAt: T1 }, ADDRESS);
const openThrows = (state: AppFeeAccountState, claimId: string, code: string, terms = base) => {
  let thrown: unknown;
  try {
    open(state, claimId, terms);
  } catch (error) {
    thrown = error;
  }
  expect((thrown as AppFeeDomainError).code).toBe(code);
};
const submit = (claimId: string): AppFeeAccountCommand => ({
  type: 'SubmitClaimPayout',
  data: { claimId, txHash: '0xtx', at: T0 },
});
const paid = (claimId: string): AppFeeAccountCommand => ({
  type: 'RecordClaimPaid',
  data: { claimId, txHash: '0xtx', at: T0 },
});
const failed = (claimId: string): AppFeeAccountCommand => ({
  type: 'RecordClaimFailure',
  data: { claimId, reason: 'reverted', txHash: null, at: T0 },
});

describe('App-fee account decisions', () => {
  it('accrues a request once, with an id derived from the request and the recipient', () => {
    const { decided, after } = given().when(accrue('0xr1', '1500')).then('AppFeeAccrued');
    expect(decided[0].id).toBe(`app-fee-accrued:0xr1:${ADDRESS}`);
    expect(availableBalance(after)).toBe(1500n);
    given(accrue('0xr1', '1500')).when(accrue('0xr1', '1500')).then();
    given().when(accrue('0xr2', '0')).then();
  });

  it('opens claims from the balance without deciding anything on the account: an unsigned claim locks nothing', () => {
    const { state } = given(accrue('0xr1', '700'), accrue('0xr2', '300'));
    const { event, id } = open(state, 'c1');
    expect(id).toBe('app-fee-claim:c1:opened');
    expect(event).toMatchObject({ claimId: 'c1', address: ADDRESS, amount: '1000', payoutAmount: '1000' });
    expect(evolve(state, event).claims.c1.status).toBe('open');
    openThrows(initialAppFeeAccountState, 'c1', 'NOTHING_TO_CLAIM');
    openThrows(given(accrue('0xr1', '100')).state, 'c1', 'CLAIM_BELOW_FEE', { ...base, fee: 100n });
    openThrows(given(accrue('0xr1', '700'), authorize('c1')).state, 'c1', 'CLAIM_EXISTS');
  });

  it('reserves the whole available balance when the claim is signed; a second signed claim finds nothing', () => {
    const { after } = given(accrue('0xr1', '700'), accrue('0xr2', '300'))
      .when(authorize('c1'))
      .then('AppFeeClaimReserved', 'AppFeeClaimAuthorized');
    expect(after.claims.c1).toMatchObject({ status: 'authorized', amount: '1000', payoutAmount: '1000' });
    expect(availableBalance(after)).toBe(0n);
    given(accrue('0xr1', '700'), authorize('c1')).when(authorize('c2')).thenThrows('NOTHING_TO_CLAIM');
    given().when(authorize('c1')).thenThrows('NOTHING_TO_CLAIM');
  });

  it('authorizes only a claim opened for this address, with its terms', () => {
    const elsewhere: AppFeeAccountCommand = {
      type: 'AuthorizeClaim',
      data: { claimId: 'c1', signature: '0xsig', at: T0, opened: { ...opened('c1'), address: '0xother' } },
    };
    given(accrue('0xr1', '5')).when(elsewhere).thenThrows('CLAIM_NOT_FOUND');
    const mismatched: AppFeeAccountCommand = {
      type: 'AuthorizeClaim',
      data: { claimId: 'c1', signature: '0xsig', at: T0, opened: opened('c2') },
    };
    given(accrue('0xr1', '5')).when(mismatched).thenThrows('CLAIM_NOT_FOUND');
  });

  it('keeps the claim fee off chain and refuses a balance that does not cover it', () => {
    const terms = { ...base, chainId: 31337, fee: 100n };
    const { after } = given(accrue('0xr1', '1000'))
      .when(authorize('c1', T0, terms))
      .then('AppFeeClaimReserved', 'AppFeeClaimAuthorized');
    expect(after.claims.c1).toMatchObject({ amount: '1000', fee: '100', payoutAmount: '900' });
    given(accrue('0xr1', '100'))
      .when(authorize('c1', T0, terms))
      .thenThrows('CLAIM_BELOW_FEE');
  });

  it('converts the payout exactly when the claim is in another currency, at the terms fixed when it was opened', () => {
    const terms: ClaimPayoutTerms = {
      ...base,
      currency: '0x0000000000000000000000000000000000000000',
      conversion: { usdc: { decimals: 6, usdPrice: '1' }, target: { decimals: 18, usdPrice: '3000' } },
    };
    const { after } = given(accrue('0xr1', '3000000'))
      .when(authorize('c1', T0, terms))
      .then('AppFeeClaimReserved', 'AppFeeClaimAuthorized');
    expect(after.claims.c1.payoutAmount).toBe('1000000000000000'); // 3 USDC at 3000 USD per ETH = 0.001 ETH
  });

  it('authorizes a claim once, and not after it expired', () => {
    given(accrue('0xr1', '5'), authorize('c1')).when(authorize('c1')).thenThrows('CLAIM_ALREADY_USED');
    given(accrue('0xr1', '5')).when(authorize('c1', T1)).thenThrows('CLAIM_EXPIRED');
    given(accrue('0xr1', '5'), authorize('c1'), failed('c1'))
      .when(authorize('c1'))
      .thenThrows('CLAIM_ALREADY_USED');
  });

  it('spends the reservation when paid and gives it back when the payout fails', () => {
    const paidState = given(accrue('0xr1', '5'), authorize('c1'), submit('c1'), paid('c1')).state;
    expect(paidState).toMatchObject({ accrued: '5', reserved: '0', withdrawn: '5' });
    expect(availableBalance(paidState)).toBe(0n);

    const failedState = given(accrue('0xr1', '5'), authorize('c1'), failed('c1')).state;
    expect(availableBalance(failedState)).toBe(5n);
    expect(failedState.claims.c1.status).toBe('failed');
  });

  it('restates a payout outcome already recorded as nothing, and refuses outcomes of claims not authorized', () => {
    given(accrue('0xr1', '5'), authorize('c1'), paid('c1')).when(paid('c1')).then();
    given(accrue('0xr1', '5'), authorize('c1'), failed('c1')).when(failed('c1')).then();
    given(accrue('0xr1', '5')).when(paid('c1')).thenThrows('CLAIM_NOT_FOUND');
    given(accrue('0xr1', '5')).when(submit('c1')).thenThrows('CLAIM_NOT_FOUND');
    given(accrue('0xr1', '5'), authorize('c1'), failed('c1'))
      .when(paid('c1'))
      .thenThrows('ILLEGAL_TRANSITION');
    given(accrue('0xr1', '5'), authorize('c1'), paid('c1'))
      .when(failed('c1'))
      .thenThrows('ILLEGAL_TRANSITION');
  });

  it('fails a submitted claim only by its own payout: another attempt that sent nothing cannot release it', () => {
    given(accrue('0xr1', '5'), authorize('c1'), submit('c1'))
      .when(failed('c1'))
      .thenThrows('ILLEGAL_TRANSITION');
    const { after } = given(accrue('0xr1', '5'), authorize('c1'), submit('c1'))
      .when({
        type: 'RecordClaimFailure',
        data: { claimId: 'c1', reason: 'dropped', txHash: '0xtx', at: T0 },
      })
      .then('AppFeeClaimFailed');
    expect(availableBalance(after)).toBe(5n);
  });

  it('pays a sponsored request once, never below a zero balance', () => {
    const sponsor = (requestId: string, amount: string): AppFeeAccountCommand => ({
      type: 'PaySponsorship',
      data: { requestId, amount, at: T0, source: fillOf(requestId) },
    });
    const { decided, after } = given(accrue('0xr1', '1000'))
      .when(sponsor('0xs1', '300'))
      .then('AppFeeSponsorshipPaid');
    expect(decided[0].id).toBe(`app-fee-sponsored:0xs1:${ADDRESS}`);
    expect(availableBalance(after)).toBe(700n);
    given(accrue('0xr1', '1000'), sponsor('0xs1', '300')).when(sponsor('0xs1', '300')).then();
    const short = given(accrue('0xr1', '100')).when(sponsor('0xs2', '300'));
    const { decided: paid, after: drained } = short.then('AppFeeSponsorshipPaid');
    expect(paid[0].event).toMatchObject({ amount: '100', shortfall: '200' });
    expect(availableBalance(drained)).toBe(0n);
    expect(
      given(accrue('0xr1', '100'), authorize('c1')).when(sponsor('0xs3', '50')).then('AppFeeSponsorshipPaid')
        .decided[0].event,
    ).toMatchObject({ amount: '0', shortfall: '50' });
  });

  describe('sponsorship holds', () => {
    const hold = (requestId: string, amount: string): AppFeeAccountCommand => ({
      type: 'HoldSponsorship',
      data: { requestId, amount, at: T0 },
    });
    const release = (requestId: string): AppFeeAccountCommand => ({
      type: 'ReleaseSponsorship',
      data: { requestId, reason: 'FILL_REVERTED', at: T1 },
    });
    const pay = (requestId: string, amount: string): AppFeeAccountCommand => ({
      type: 'PaySponsorship',
      data: { requestId, amount, at: T1, source: fillOf(requestId) },
    });

    it('holds a sponsorship the balance covers, once per request, and refuses one it does not', () => {
      const { decided, after } = given(accrue('0xr1', '1000'))
        .when(hold('0xs1', '600'))
        .then('AppFeeSponsorshipHeld');
      expect(decided[0].id).toBe(`app-fee-sponsorship-held:0xs1:${ADDRESS}`);
      expect(availableBalance(after)).toBe(400n);
      // A retried fill finds its hold: nothing more is taken.
      given(accrue('0xr1', '1000'), hold('0xs1', '600')).when(hold('0xs1', '600')).then();
      // The balance the first hold left does not cover a second request's sponsorship.
      given(accrue('0xr1', '1000'), hold('0xs1', '600'))
        .when(hold('0xs2', '600'))
        .thenThrows('SPONSORSHIP_NOT_COVERED');
      // Nor what a signed claim took aside.
      given(accrue('0xr1', '1000'), authorize('c1'))
        .when(hold('0xs1', '1'))
        .thenThrows('SPONSORSHIP_NOT_COVERED');
    });

    it('a held balance is not claimable', () => {
      const state = given(accrue('0xr1', '1000'), hold('0xs1', '1000')).state;
      expect(() => open(state, 'c1')).toThrow(AppFeeDomainError);
      given(accrue('0xr1', '1000'), hold('0xs1', '1000'))
        .when(authorize('c1'))
        .thenThrows('NOTHING_TO_CLAIM');
    });

    it('pays a held request from its hold, with no shortfall', () => {
      const { decided, after } = given(accrue('0xr1', '1000'), hold('0xs1', '600'))
        .when(pay('0xs1', '600'))
        .then('AppFeeSponsorshipPaid');
      expect(decided[0].event).toMatchObject({ amount: '600', shortfall: '0' });
      expect(availableBalance(after)).toBe(400n);
      expect(heldTotal(after)).toBe(0n);
      expect(after.sponsored).toBe('600');
      // Paid: no release, no second payment.
      given(accrue('0xr1', '1000'), hold('0xs1', '600'), pay('0xs1', '600')).when(release('0xs1')).then();
      given(accrue('0xr1', '1000'), hold('0xs1', '600'), pay('0xs1', '600')).when(pay('0xs1', '600')).then();
      // A hold asked again would be the first hold's event, by id: the store keeps it once (the hold-ledger suite).
      const again = given(accrue('0xr1', '2000'), hold('0xs1', '600'), pay('0xs1', '600'))
        .when(hold('0xs1', '600'))
        .then('AppFeeSponsorshipHeld');
      expect(again.decided[0].id).toBe(`app-fee-sponsorship-held:0xs1:${ADDRESS}`);
    });

    it('releases a hold once: the balance comes back exactly once', () => {
      const { decided, after } = given(accrue('0xr1', '1000'), hold('0xs1', '600'))
        .when(release('0xs1'))
        .then('AppFeeSponsorshipReleased');
      expect(decided[0].id).toBe(`app-fee-sponsorship-released:0xs1:${ADDRESS}`);
      expect(decided[0].event).toMatchObject({ amount: '600', reason: 'FILL_REVERTED' });
      expect(availableBalance(after)).toBe(1000n);
      given(accrue('0xr1', '1000'), hold('0xs1', '600'), release('0xs1')).when(release('0xs1')).then();
      // A released request asked again decides its first hold's event, by id: the store keeps it once.
      const again = given(accrue('0xr1', '1000'), hold('0xs1', '600'), release('0xs1'))
        .when(hold('0xs1', '600'))
        .then('AppFeeSponsorshipHeld');
      expect(again.decided[0].id).toBe(`app-fee-sponsorship-held:0xs1:${ADDRESS}`);
      // Nothing held, nothing released.
      given(accrue('0xr1', '1000')).when(release('0xs9')).then();
    });
  });

  describe("once per fill, by the fill's place in the log", () => {
    const at = (commit: number, prepare: number): LogMark => ({
      commit: String(commit),
      prepare: String(prepare),
    });
    const credit = (requestId: string, source: LogMark): AppFeeAccountCommand => ({
      type: 'AccrueAppFee',
      data: { requestId, amount: '10', amountUsd: '10', usdcPrice: '1', accruedAt: T0, source },
    });
    const share = (requestId: string, source: LogMark): AppFeeAccountCommand => ({
      type: 'AccrueRevenueShare',
      data: {
        requestId,
        apiKeyId: 'key',
        transactionType: 'bridge',
        tier: '10M-100M',
        trailingVolumeUsd: '20000000',
        share: '0.1',
        platformFeeUsd: '1',
        amountUsd: '0.1',
        usdcPrice: '1',
        amount: '100000',
        accruedAt: T0,
        source,
      },
    });

    it('takes a fill at or before the mark as taken, a later one as new; the log orders by commit, then prepare', () => {
      const state = given(credit('0xa', at(5, 900))).state;
      expect(state.marks.appFee).toEqual(at(5, 900));
      given(credit('0xa', at(5, 900)))
        .when(credit('0xa', at(5, 900)))
        .then();
      given(credit('0xa', at(5, 900)))
        .when(credit('0xb', at(5, 899)))
        .then();
      given(credit('0xa', at(5, 900)))
        .when(credit('0xb', at(4, 9999)))
        .then();
      given(credit('0xa', at(5, 900)))
        .when(credit('0xb', at(5, 901)))
        .then('AppFeeAccrued');
      given(credit('0xa', at(5, 900)))
        .when(credit('0xb', at(6, 1)))
        .then('AppFeeAccrued');
    });

    it('keeps one mark per kind: a fill credits its app fee and its revenue share to one account', () => {
      const { after } = given(credit('0xa', at(5, 900)))
        .when(share('0xa', at(5, 900)))
        .then('RevenueShareAccrued');
      expect(after.marks).toEqual({ appFee: at(5, 900), revenueShare: at(5, 900) });
      expect(availableBalance(after)).toBe(100010n);
      given(credit('0xa', at(5, 900)), share('0xa', at(5, 900)))
        .when(share('0xa', at(5, 900)))
        .then();
    });

    it('an account credited for thousands of requests is as large as one credited for two', () => {
      const sizeAfter = (requests: number) => {
        let state = initialAppFeeAccountState;
        for (let index = 0; index < requests; index += 1) {
          const requestId = `0x${index.toString(16).padStart(64, '0')}`;
          const source = at(1_000_000 + index, 1_000_000 + index);
          for (const command of [
            credit(requestId, source),
            share(requestId, source),
            { type: 'HoldSponsorship', data: { requestId, amount: '5', at: T0 } } as const,
            { type: 'PaySponsorship', data: { requestId, amount: '5', at: T0, source } } as const,
          ]) {
            state = fold(state, command);
          }
        }
        return { state, size: JSON.stringify(state).length };
      };
      const few = sizeAfter(2);
      const many = sizeAfter(3000);
      expect(many.state).toMatchObject({ holds: {}, sponsored: '15000' });
      expect(BigInt(many.state.accrued)).toBe(3000n * 100010n);
      // Only the digits of the sums and marks grow.
      expect(many.size - few.size).toBeLessThan(40);
    });
  });
});
