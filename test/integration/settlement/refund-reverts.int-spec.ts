import type { Hex } from 'viem';
import type { Database } from '../../../src/database/database.js';
import type { TestApp } from '../../support/app.js';
import { type ChainClients, postJson, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startSettlementSuite, stopSettlementSuite } from '../../support/settlement-suite.js';
import {
  depositNativeFor,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  type Quote,
  solverGasPaid,
} from './settlement-support.js';
import { deployGasTrap, frontRunSolver } from './front-runner.js';

/**
 * A refund weighed against its gas on its first attempt only, then sent again after each revert: a `refundTo` contract
 * that passes the estimate and is armed by a transaction front-running each refund into its block makes the solver
 * pay a refund's gas per attempt (up to 12 per job, and again on each solver:retry) for a deposit that stays in the
 * depository. The solver must never spend on refunding a deposit more gas, over all its attempts, than it is worth.
 */
describe('refunds that revert when sent', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let app: TestApp;
  let db: Database;

  beforeAll(async () => {
    ({ a, b, clients, database, app, db } = await startSettlementSuite('ferry_refund_reverts'));
  }, 120_000);
  afterAll(() => stopSettlementSuite({ a, b, database, app }));

  /** The gas the solver paid for the request's refunds that mined or reverted, how many it sent, how many reverted. */
  const gasPaid = (id: Hex) => solverGasPaid(db, clients, a, id, 'refund');

  it('a refund that reverts once sent is not sent again when the deposit would not cover its gas again', async () => {
    const trap = await deployGasTrap(clients, a, 'owner');
    const stop = frontRunSolver(clients, a, trap);
    let id: Hex | undefined;
    let amount = 0n;
    try {
      // The front-runner arms the trap when it sees a refund waiting in the pool, then mines. A refund that reaches the
      // pool between its look and its mine is mined unarmed and succeeds (a busy machine widens that window): the
      // attack is then played again on a new request, at most three times.
      for (let attempt = 0; attempt < 3 && id === undefined; attempt += 1) {
        const { code, body } = await postJson(app, '/quote/v2', {
          ...ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(0xe1 + attempt)),
          refundTo: trap,
        });
        expect(code).toBe(200);
        const request = (body as Quote).protocol.v2.orderId;
        // A short deposit worth 70,000 gas (refunded): more than two refunds' gas (about 28,000 each), less than three.
        amount = (await clients.reader(a.chainId).getGasPrice()) * 70_000n;
        await depositNativeFor(clients, a, request, amount);
        const outcome = await waitFor(
          async () => {
            if ((await gasPaid(request)).reverted > 0) return 'reverted';
            const types = await eventTypesOf(db, request);
            return types.includes('RefundSucceeded') ? 'refunded unarmed' : null;
          },
          'a refund reverted (or mined before the front-runner armed the trap)',
          75_000,
        ).catch(async (error: Error) => {
          // What the request and the journal show, for whoever reads a failure here.
          const seen = { events: await eventTypesOf(db, request), journal: await journalOf(db, request) };
          throw new Error(`${error.message}: ${JSON.stringify(seen)}`);
        });
        if (outcome === 'reverted') id = request;
      }
      expect(id).toBeDefined();
      // Time for the job to send more (after 1 s, 2 s, 4 s), if it would.
      await new Promise((resolve) => setTimeout(resolve, 12_000));
    } finally {
      await stop();
    }

    const { paid, sent } = await gasPaid(id!);
    // At most two refunds sent (about 28,000 gas each against a deposit worth 70,000): a third would take the solver's
    // spending on this deposit past its worth. The second may have mined (the front-runner can miss one: then it is a
    // refund), never a third after two reverted.
    expect(sent).toBeLessThanOrEqual(2);
    expect(paid).toBeLessThanOrEqual(amount);
  }, 300_000);
});
