import { eventTypeOf } from '../../../src/event-store/domain-event.js';
import {
  decide,
  type RequestCommand,
  RequestDomainError,
} from '../../../src/requests/domain/request-decide.js';
import type { RequestEventType } from '../../../src/requests/domain/request-events.js';
import {
  evolve,
  initialRequestState,
  type RequestState,
} from '../../../src/requests/domain/request-state.js';
import {
  REQUEST_STATUSES,
  type RequestStatus,
  TRANSITIONS,
} from '../../../src/requests/domain/request-status.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';

const quote = sampleQuote(1);
const [quoteCmd, detect, confirm, submitFill, fillSuccess] = sampleLifecycle(quote, 1);
const FAR_FUTURE = '2030-01-01T00:00:00.000Z';
const fresh = (n: number) => `0x${'f'.repeat(2)}${n.toString(16).padStart(62, '0')}`;

const failFill: RequestCommand = {
  type: 'RecordFillFailure',
  data: {
    failReason: 'FILL_REVERTED',
    failedTxHash: null,
    failedTxBlockNumber: null,
    failedCallData: null,
    details: null,
    failedAt: '2026-11-01T00:01:00.000Z',
  },
};
const submitDeposit: RequestCommand = {
  type: 'SubmitDeposit',
  data: {
    via: 'permit',
    chainId: quote.originChainId,
    txHash: null,
    submittedAt: '2026-11-01T00:00:10.000Z',
  },
};
const refundTx = {
  chainId: quote.originChainId,
  block: 5,
  timestamp: 1_790_000_000,
  fee: '1',
  amount: '1',
  currency: quote.currencyIn.currency.address,
  recipient: quote.user,
};
const refundSuccess = (n: number): RequestCommand => ({
  type: 'RecordRefundSuccess',
  data: { ...refundTx, txHash: fresh(n), refundedAt: '2026-11-01T00:02:00.000Z' },
});

const refundSkip = {
  refundFailReason: 'AMOUNT_TOO_LOW_TO_REFUND',
  chainId: quote.originChainId,
  amount: '1',
  currency: quote.currencyIn.currency.address,
  skippedAt: '2026-11-01T00:02:00.000Z',
} as const;

/** Command histories that bring a request to each status. */
const HISTORIES: Record<RequestStatus | 'none', RequestCommand[]> = {
  none: [],
  waiting: [quoteCmd],
  depositing: [quoteCmd, submitDeposit],
  pending: [quoteCmd, detect, confirm],
  submitted: [quoteCmd, detect, confirm, submitFill],
  success: [quoteCmd, detect, confirm, submitFill, fillSuccess],
  failure: [quoteCmd, detect, confirm, failFill],
  refund: [quoteCmd, detect, confirm, failFill, refundSuccess(1)],
};

/** What the quote asks to be deposited, as a deposit event carries it. */
const paid = {
  amount: quote.protocol.paymentDetails.amount,
  currency: quote.protocol.paymentDetails.currency,
  depository: quote.protocol.paymentDetails.depository,
};

/** A command that produces each event type as a new fact (fresh transaction hashes). */
function commandFor(type: RequestEventType, from: RequestStatus | 'none'): RequestCommand {
  const tx = { chainId: quote.originChainId, txHash: fresh(2), block: 9, timestamp: 1_790_000_000, fee: '1' };
  switch (type) {
    case 'RequestQuoted':
      return quoteCmd;
    case 'DepositDetected':
      return {
        type: 'DetectDeposit',
        data: {
          ...tx,
          ...paid,
          depositor: quote.user,
          detectedAt: '2026-11-01T00:00:30.000Z',
        },
      };
    case 'DepositSubmitted':
      return {
        type: 'SubmitDeposit',
        data: { ...(submitDeposit.data as object), txHash: fresh(8) },
      } as RequestCommand;
    case 'DepositConfirmed':
      return {
        type: 'ConfirmDeposit',
        data: {
          ...tx,
          ...paid,
          depositor: quote.user,
          confirmedAt: '2026-11-01T00:00:30.000Z',
        },
      };
    case 'FillSubmitted':
      return {
        type: 'SubmitFill',
        data: {
          chainId: quote.destinationChainId,
          txHash: fresh(3),
          submittedAt: '2026-11-01T00:00:40.000Z',
        },
      };
    case 'FillSucceeded':
      // The success of the fill that was submitted (any other fill is a FILL_MISMATCH, tested below).
      return from === 'submitted'
        ? fillSuccess
        : ({ ...fillSuccess, data: { ...(fillSuccess.data as object), txHash: fresh(4) } } as RequestCommand);
    case 'FillFailed':
      return {
        type: 'RecordFillFailure',
        data: { ...(failFill.data as object), failReason: 'SOLVER_CAPACITY_EXCEEDED' },
      } as RequestCommand;
    case 'RefundSubmitted':
      return {
        type: 'SubmitRefund',
        data: {
          ...tx,
          txHash: fresh(5),
          amount: '1',
          currency: '0x1',
          recipient: quote.user,
          reason: null,
          submittedAt: '2026-11-01T00:03:00.000Z',
        },
      };
    case 'RefundSucceeded':
      return refundSuccess(6);
    case 'RefundFailed':
      return {
        type: 'RecordRefundFailure',
        data: {
          refundFailReason: 'REFUND_REVERTED',
          failedTxHash: fresh(7),
          failedAt: '2026-11-01T00:03:00.000Z',
        },
      };
    case 'RefundSkipped':
      return { type: 'SkipRefund', data: refundSkip };
    case 'RequestExpired':
      return { type: 'ExpireRequest', data: { at: FAR_FUTURE } };
    case 'RequestSuperseded':
      return {
        type: 'SupersedeRequest',
        data: { supersededByRequestId: '0x' + 'cd'.repeat(32), supersededAt: '2026-11-01T00:04:00.000Z' },
      };
    case 'WithdrawalAuthorized':
      return {
        type: 'AuthorizeWithdrawal',
        data: {
          kind: 'nonce-mapping',
          wallet: quote.user,
          nonce: 1,
          signature: '0x' + '11'.repeat(65),
          signatureChainId: 1,
          authorizedAt: '2026-11-01T00:00:30.000Z',
        },
      };
    case 'OracleAttested':
      return {
        type: 'RecordAttestation',
        data: {
          kind: 'depository-deposit',
          subject: `deposit:${quote.originChainId}:0x${'ab'.repeat(32)}:0`,
          messageId: '0x' + '12'.repeat(32),
          domain: {
            name: 'FerryOracle',
            version: '1',
            chainId: 31337,
            verifyingContract: '0x' + '01'.repeat(20),
          },
          message: { data: {}, result: {} },
          signatures: [],
          counted: [],
          attestedAt: '2026-11-01T00:02:00.000Z',
        },
      };
    case 'DepositAddressFunded':
    case 'DepositAddressTransferRefused':
      throw new Error(
        `${type} is decided by the deposit-address rules (deposit-address-decide.spec), not this table`,
      );
  }
}

function stateAfter(commands: RequestCommand[]): RequestState {
  return commands.reduce(
    (state, command) => decide(state, command).reduce((s, { event }) => evolve(s, event), state),
    initialRequestState,
  );
}

/** ARCHITECTURE §4, written out once more by hand: the status each event leads to from each status. */
const EXPECTED: Record<RequestEventType, Partial<Record<RequestStatus | 'none', RequestStatus>>> = {
  RequestQuoted: { none: 'waiting' },
  DepositDetected: { waiting: 'waiting', depositing: 'depositing' },
  DepositSubmitted: { waiting: 'depositing' },
  DepositConfirmed: { waiting: 'pending', depositing: 'pending' },
  FillSubmitted: { pending: 'submitted' },
  FillSucceeded: { submitted: 'success' },
  FillFailed: { depositing: 'failure', pending: 'failure', submitted: 'failure' },
  RefundSubmitted: { pending: 'pending', failure: 'failure' },
  RefundSucceeded: { pending: 'refund', failure: 'refund' },
  RefundFailed: { pending: 'failure', failure: 'failure' },
  RefundSkipped: { failure: 'failure' },
  RequestExpired: { waiting: 'waiting', depositing: 'failure', pending: 'failure' },
  RequestSuperseded: { waiting: 'waiting' },
  WithdrawalAuthorized: { waiting: 'waiting' },
  DepositAddressFunded: { waiting: 'waiting' },
  DepositAddressTransferRefused: {
    waiting: 'waiting',
    depositing: 'depositing',
    pending: 'pending',
    submitted: 'submitted',
    success: 'success',
    failure: 'failure',
    refund: 'refund',
  },
  OracleAttested: {
    pending: 'pending',
    submitted: 'submitted',
    success: 'success',
    failure: 'failure',
    refund: 'refund',
  },
};

/** Decided by the deposit-address rules rather than the table alone (test/unit/requests/deposit-address-decide.spec). */
const ADDRESS_EVENTS: readonly RequestEventType[] = ['DepositAddressFunded', 'DepositAddressTransferRefused'];

describe('request transitions', () => {
  it('the transition table is exactly the architecture’s', () => {
    expect(TRANSITIONS).toEqual(EXPECTED);
  });

  const cases = (['none', ...REQUEST_STATUSES] as const).flatMap((from) =>
    (Object.keys(EXPECTED) as RequestEventType[])
      .filter((type) => !ADDRESS_EVENTS.includes(type))
      .map((type) => [from, type, EXPECTED[type][from] ?? null] as const),
  );

  it.each(cases)('from %s, %s leads to %s (null: refused, nothing appended)', (from, type, to) => {
    const state = stateAfter(HISTORIES[from]);
    expect(state.status).toBe(from);
    const command = commandFor(type, from);
    if (to === null) {
      let error: unknown;
      try {
        decide(state, command);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(RequestDomainError);
      expect([
        'ILLEGAL_TRANSITION',
        'REQUEST_ALREADY_EXISTS',
        'REQUEST_NOT_FOUND',
        'FILL_MISMATCH',
      ]).toContain((error as RequestDomainError).code);
      return;
    }
    const decided = decide(state, command);
    expect(decided.map(({ event }) => eventTypeOf(event).type)).toEqual([type]);
    expect(evolve(state, decided[0].event).status).toBe(to);
  });
});
