import type { Hex, PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { ClaimPayouts } from '../../../src/app-fees/claim-payouts.js';
import { AppFeePayoutsProvider } from '../../../src/app-fees/app-fee-payouts.provider.js';
import { AppFeeAccountAggregate } from '../../../src/app-fees/domain/app-fee-account.aggregate.js';
import type { AppFeeClaimOpenedData } from '../../../src/app-fees/domain/app-fee-account-events.js';
import type { ChainInfo } from '../../../src/chains/chain.js';
import type { Clock } from '../../../src/common/clock.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import { EvmClients } from '../../../src/solver/evm-clients.js';
import { TransactionJournal } from '../../../src/solver/transaction-journal.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { ChainClients, postJson, settlementEnv } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';

const OWNER = privateKeyToAccount(`0x${'d1'.repeat(32)}`);
const BALANCE = 2_000_000n; // 2 USDC

/** A second instance's chain reads whose gas estimation hangs until `release`, then fails (an RPC timeout). */
class FlakyEstimates extends EvmClients {
  reached!: () => void;
  readonly estimating = new Promise<void>((resolve) => (this.reached = resolve));
  release!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));

  override of(chain: ChainInfo): PublicClient {
    const client = super.of(chain);
    return new Proxy(client, {
      get: (target, property, receiver) => {
        if (property !== 'estimateGas') return Reflect.get(target, property, receiver);
        return async () => {
          this.reached();
          await this.gate;
          throw new Error('HTTP request failed. Details: The request took too long to respond (timeout)');
        };
      },
    });
  }
}

/**
 * Attack (two instances paying one claim): a signed claim left `authorized` (a crash before its payout was journaled)
 * is picked up by the resumer of every instance at once. Instance B reads the journal (no entry yet) and estimates gas;
 * instance A journals, records and broadcasts the payout. B's estimate then fails (an RPC timeout): B records the
 * claim failed, giving its reservation back to the balance, while A's payout is in the mempool. It mines: the owner
 * was paid, and holds the whole balance again to claim a second time.
 */
describe('app-fee claims: a failed attempt of one instance does not release a payout another instance sent', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  const clock: Clock = { now: () => new Date() };

  const available = async (): Promise<bigint> => {
    await waitForProjections(app);
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${OWNER.address}/balances` });
    return BigInt((response.json() as { balances: { amount: string }[] }).balances[0].amount);
  };
  const account = () => new AppFeeAccountAggregate(OWNER.address);
  const rpc = (method: string, params: unknown[] = []) =>
    clients.reader(b.chainId).request({ method, params } as never);
  /** Credits the owner `BALANCE` for the `n`th fill. */
  const credit = (n: number) =>
    app.app.get(AggregateRepository).execute(account, (state) =>
      state.handle({
        type: 'AccrueAppFee',
        data: {
          requestId: `0x${n.toString(16).padStart(2, '0').repeat(32)}`,
          amount: BALANCE.toString(),
          amountUsd: '2',
          usdcPrice: '1',
          accruedAt: clock.now().toISOString(),
          source: { commit: String(n), prepare: String(n) },
        },
      }),
    );
  /** Opens a claim of the whole balance and authorizes it with the owner's signature, as `POST /execute/permits` does. */
  const openAndAuthorize = async () => {
    const opened = await postJson(app, `/app-fees/${OWNER.address}/claim`, {
      chainId: b.chainId,
      currency: b.deployment.usdc,
    });
    expect(opened.code).toBe(200);
    const claimId = (opened.body as { steps: { requestId: Hex }[] }).steps[0].requestId;
    const [openedEvent] = await app.app
      .get<symbol, EventStore>(EVENT_STORE)
      .readStream(`app-fee-claim-${claimId}`);
    const signature = await OWNER.signMessage({ message: { raw: claimId } });
    const authorized = await app.app.get(AggregateRepository).execute(account, (state) =>
      state.handle({
        type: 'AuthorizeClaim',
        data: {
          claimId,
          signature,
          at: clock.now().toISOString(),
          opened: openedEvent.data as AppFeeClaimOpenedData,
        },
      }),
    );
    return authorized.state.claims[claimId];
  };

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b), [], clock);
    await credit(1);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('is paid once: the balance is not given back while the payout is in flight, and cannot be claimed again', async () => {
    expect(await available()).toBe(BALANCE);
    // Signed and authorized; the process died before the payout was journaled.
    const claim = await openAndAuthorize();

    // Blocks come every few seconds on a real chain: the payout waits in the mempool for a while.
    await rpc('evm_setAutomine', [false]);
    try {
      const instanceA = app.app.get(AppFeePayoutsProvider).get()!;
      const flaky = new FlakyEstimates();
      const instanceB = new ClaimPayouts(
        new TransactionJournal(
          app.app.get<symbol, Database>(DATABASE),
          flaky,
          privateKeyToAccount(a.accounts.solver.privateKey as Hex),
        ),
        app.config.chains,
        app.app.get(AggregateRepository),
        clock,
      );

      const attemptB = instanceB.pay(OWNER.address, claim, 1_000);
      await flaky.estimating; // B found no journal entry and estimates gas
      const attemptA = await instanceA.pay(OWNER.address, claim, 500);
      expect(attemptA.status).toBe('submitted');
      flaky.release(); // B's estimate times out
      await attemptB.catch(() => undefined);

      // While A's payout is in flight, the claim still holds the balance.
      expect(await available()).toBe(0n);
      await rpc('evm_mine');
      const settled = await instanceA.pay(OWNER.address, claim, 5_000).catch((error: unknown) => error);
      expect(settled).toMatchObject({ status: 'paid', txHash: attemptA.txHash });
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, OWNER.address)).toBe(BALANCE);
    expect(await available()).toBe(0n);

    // The owner tries to claim the same balance a second time.
    const again = await postJson(app, `/app-fees/${OWNER.address}/claim`, {
      chainId: b.chainId,
      currency: b.deployment.usdc,
    });
    if (again.code === 200) {
      const secondId = (again.body as { steps: { requestId: Hex }[] }).steps[0].requestId;
      await waitForProjections(app);
      await postJson(
        app,
        `/execute/permits?signature=${await OWNER.signMessage({ message: { raw: secondId } })}`,
        { kind: 'claim', requestId: secondId },
      );
    } else {
      expect(again.body).toMatchObject({ errorCode: 'NOTHING_TO_CLAIM' });
    }
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, OWNER.address)).toBe(BALANCE);
  }, 120_000);

  it('when the other instance journals the payout only after this attempt looked again, the failure is refused and the payout settled', async () => {
    await credit(2);
    expect(await available()).toBe(BALANCE);
    const before = await clients.balanceOf(b.chainId, b.deployment.usdc, OWNER.address);
    const claim = await openAndAuthorize();

    await rpc('evm_setAutomine', [false]);
    try {
      const instanceA = app.app.get(AppFeePayoutsProvider).get()!;
      const flaky = new FlakyEstimates();
      // B's two journal reads both happen before A's entry is committed (its look after the failed estimate too).
      let staleReads = 2;
      const journalB = new (class extends TransactionJournal {
        override async entriesOf(jobKey: string) {
          if (staleReads-- > 0) return [];
          return super.entriesOf(jobKey);
        }
      })(
        app.app.get<symbol, Database>(DATABASE),
        flaky,
        privateKeyToAccount(a.accounts.solver.privateKey as Hex),
      );
      const instanceB = new ClaimPayouts(
        journalB,
        app.config.chains,
        app.app.get(AggregateRepository),
        clock,
      );

      const attemptB = instanceB.pay(OWNER.address, claim, 1_000);
      await flaky.estimating;
      const attemptA = await instanceA.pay(OWNER.address, claim, 500);
      expect(attemptA.status).toBe('submitted');
      flaky.release();
      expect(await attemptB).toEqual({ status: 'submitted', txHash: attemptA.txHash });
      expect(await available()).toBe(0n);
      await rpc('evm_mine');
      expect(await instanceA.pay(OWNER.address, claim, 5_000)).toEqual({
        status: 'paid',
        txHash: attemptA.txHash,
      });
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, OWNER.address)).toBe(before + BALANCE);
    expect(await available()).toBe(0n);
  }, 120_000);
});
