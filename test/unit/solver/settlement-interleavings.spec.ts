import fc from 'fast-check';
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

/**
 * Each deposit leads to at most one payment (one fill, or one refund, or one return), and a deposit that does not
 * match its quote is never filled, whatever the interleaving of watcher facts (in any order, repeated), solver steps,
 * chain outcomes, deadline sweeps and restarts.
 *
 * The request is the real aggregate (`decide`/`evolve`). The solver is modelled step by step as src/solver does it,
 * reading only what it persisted (so a restart is any step run again): the fill is journaled held, recorded with
 * `SubmitFill` (the aggregate checks the deadline), then released, or abandoned (its nonce filled) when refused; past
 * the deadline a released fill is cancelled with its nonce; the outcome is read from which transaction took the
 * nonce. A refund runs only for a request in `failure`, and is journaled once. Unmatched deposits are returned once.
 */

type DepositKind = 'match' | 'short' | 'late' | 'wrongChain' | 'wrongCurrency' | 'wrongDepository';

type Action =
  | { readonly type: 'confirm'; readonly deposit: number }
  | { readonly type: 'fillStep' }
  | { readonly type: 'mine'; readonly preferCancel: boolean }
  | { readonly type: 'refundStep' }
  | { readonly type: 'returnStep'; readonly deposit: number }
  | { readonly type: 'sweep' }
  | { readonly type: 'tick'; readonly seconds: number }
  | { readonly type: 'restart' };

interface World {
  state: RequestState;
  now: number;
  /** Which deposit (index) the request took. */
  taken: number | null;
  fill: { state: 'held' | 'released' | 'void'; cancelled: boolean } | null;
  /** Which transaction used the fill's nonce on the destination chain. */
  nonceUsedBy: null | 'fill' | 'cancel' | 'gap';
  refundJournaled: boolean;
  /** `unmatched_deposits`: one row per deposit (its primary key), pending until returned. */
  unmatched: Map<number, 'pending' | 'returned'>;
  payments: Map<number, string[]>;
}

const quote: RequestQuotedData = sampleQuote(11);
const [quoted, , confirmTemplate, , fillSuccessTemplate] = sampleLifecycle(quote, 11);

function depositCommand(index: number, kind: DepositKind): RequestCommand {
  const base = confirmTemplate.data as unknown as Record<string, unknown> & {
    amount: string;
    timestamp: number;
  };
  const data: Record<string, unknown> = {
    ...base,
    txHash: `0x${(index + 1).toString(16).padStart(64, '0')}`,
    logIndex: index,
  };
  if (kind === 'short') data.amount = (BigInt(base.amount) - 1n).toString();
  if (kind === 'late') data.timestamp = Date.parse(quote.quoteExpiresAt) / 1000 + 60;
  if (kind === 'wrongChain') data.chainId = quote.destinationChainId;
  if (kind === 'wrongCurrency') data.currency = '0x000000000000000000000000000000000000dEaD';
  if (kind === 'wrongDepository') data.depository = '0x000000000000000000000000000000000000bEEF';
  return { type: 'ConfirmDeposit', data } as unknown as RequestCommand;
}

function apply(world: World, command: RequestCommand): boolean {
  try {
    for (const { event } of decide(world.state, command)) world.state = evolve(world.state, event);
    return true;
  } catch (error) {
    if (error instanceof RequestDomainError) return false;
    throw error;
  }
}

const iso = (world: World) => new Date(world.now).toISOString();
const pay = (world: World, deposit: number, kind: string) =>
  world.payments.set(deposit, [...(world.payments.get(deposit) ?? []), kind]);

function step(world: World, kinds: readonly DepositKind[], action: Action): void {
  switch (action.type) {
    case 'confirm': {
      const index = action.deposit % kinds.length;
      const command = depositCommand(index, kinds[index]);
      (command.data as { confirmedAt: string }).confirmedAt = iso(world);
      const before = world.state;
      if (apply(world, command)) {
        if (world.state !== before && world.taken === null) world.taken = index;
      } else if (world.taken !== index && !world.unmatched.has(index)) {
        world.unmatched.set(index, 'pending');
      }
      return;
    }
    case 'fillStep': {
      if (!world.fill) {
        if (world.state.status === 'pending') world.fill = { state: 'held', cancelled: false };
        return;
      }
      if (world.fill.state === 'held') {
        const submitted = apply(world, {
          type: 'SubmitFill',
          data: { chainId: quote.destinationChainId, txHash: `0x${'f'.repeat(64)}`, submittedAt: iso(world) },
        });
        if (submitted) world.fill.state = 'released';
        else {
          world.fill.state = 'void';
          world.nonceUsedBy ??= 'gap';
        }
        return;
      }
      if (world.fill.state !== 'released') return;
      if (world.nonceUsedBy === 'fill') {
        apply(world, {
          ...fillSuccessTemplate,
          data: {
            ...(fillSuccessTemplate.data as object),
            txHash: `0x${'f'.repeat(64)}`,
            completedAt: iso(world),
          },
        } as RequestCommand);
      } else if (world.nonceUsedBy === 'cancel') {
        apply(world, {
          type: 'RecordFillFailure',
          data: {
            failReason: 'FILL_CANCELLED',
            failedTxHash: null,
            failedTxBlockNumber: null,
            failedCallData: null,
            details: 'cancelled',
            failedAt: iso(world),
          },
        });
      } else if (world.now >= Date.parse(quote.fillDeadline)) {
        world.fill.cancelled = true;
      }
      return;
    }
    case 'mine': {
      if (world.nonceUsedBy !== null || world.fill?.state !== 'released') return;
      if (world.fill.cancelled && action.preferCancel) world.nonceUsedBy = 'cancel';
      else {
        world.nonceUsedBy = 'fill';
        pay(world, world.taken!, 'fill');
      }
      return;
    }
    case 'refundStep': {
      if (world.state.status !== 'failure' || world.taken === null || world.refundJournaled) return;
      const deposit = 'deposit' in world.state ? world.state.deposit : null;
      if (!deposit) return;
      world.refundJournaled = true;
      pay(world, world.taken, 'refund');
      apply(world, {
        type: 'RecordRefundSuccess',
        data: {
          chainId: quote.originChainId,
          txHash: `0x${'e'.repeat(64)}`,
          block: 1,
          timestamp: world.now / 1000,
          fee: '0',
          amount: quote.currencyIn.amount,
          currency: quote.currencyIn.currency.address,
          recipient: quote.user,
          refundedAt: iso(world),
        },
      });
      return;
    }
    case 'returnStep': {
      const index = action.deposit % kinds.length;
      if (world.unmatched.get(index) !== 'pending') return;
      world.unmatched.set(index, 'returned');
      pay(world, index, 'return');
      return;
    }
    case 'sweep':
      apply(world, { type: 'ExpireRequest', data: { at: iso(world) } });
      return;
    case 'tick':
      world.now += action.seconds * 1000;
      return;
    case 'restart':
      // Nothing lives outside what was persisted (the request, the journal, the job rows): a restart only means the
      // steps run again, which the other actions already do.
      return;
  }
}

const actions: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ type: fc.constant('confirm' as const), deposit: fc.nat(3) }),
  fc.constant({ type: 'fillStep' } as const),
  fc.record({ type: fc.constant('mine' as const), preferCancel: fc.boolean() }),
  fc.constant({ type: 'refundStep' } as const),
  fc.record({ type: fc.constant('returnStep' as const), deposit: fc.nat(3) }),
  fc.constant({ type: 'sweep' } as const),
  fc.record({ type: fc.constant('tick' as const), seconds: fc.constantFrom(1, 60, 300, 900, 1800) }),
  fc.constant({ type: 'restart' } as const),
);
const depositKinds = fc.array(
  fc.constantFrom<DepositKind>('match', 'short', 'late', 'wrongChain', 'wrongCurrency', 'wrongDepository'),
  { minLength: 1, maxLength: 3 },
);

describe('settlement interleavings (model of the solver over the real Request aggregate)', () => {
  it('pays each deposit at most once, and never fills a deposit that does not match its quote', () => {
    fc.assert(
      fc.property(
        depositKinds,
        fc.array(actions, { minLength: 5, maxLength: 60, size: 'max' }),
        (kinds, plan) => {
          const world: World = {
            state: initialRequestState,
            now: Date.parse(quote.quotedAt) + 5_000,
            taken: null,
            fill: null,
            nonceUsedBy: null,
            refundJournaled: false,
            unmatched: new Map(),
            payments: new Map(),
          };
          apply(world, quoted);
          for (const action of plan) {
            step(world, kinds, action);
            for (const [deposit, paid] of world.payments) {
              if (paid.length > 1)
                throw new Error(`deposit ${deposit} (${kinds[deposit]}) paid ${paid.join(' + ')}`);
              if (paid[0] === 'fill' && kinds[deposit] !== 'match') {
                throw new Error(`deposit ${deposit} (${kinds[deposit]}) filled`);
              }
            }
          }
        },
      ),
      { seed: 20261124, numRuns: 5000 },
    );
  });
});
