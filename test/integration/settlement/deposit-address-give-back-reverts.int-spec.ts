import { type Address, type Hex } from 'viem';
import type { Database } from '../../../src/database/database.js';
import type { TestApp } from '../../support/app.js';
import { type ChainClients, postJson, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startSettlementSuite, stopSettlementSuite } from '../../support/settlement-suite.js';
import {
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  solverGasPaid,
  solverJobOf,
} from './settlement-support.js';
import { deployGasTrap, frontRunSolver } from './front-runner.js';

/**
 * A deposit-address give-back weighed against its gas once, then sent again after each revert: a `refundTo` contract
 * that passes the estimate and reverts when sent makes the solver pay a give-back's gas per attempt for funds that
 * never leave (and that its recovery address then pulls). The solver must never spend on a give-back more gas, over
 * all its attempts, than the funds it gives back are worth.
 */
describe('deposit-address give-backs that revert when sent', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let app: TestApp;
  let db: Database;

  beforeAll(async () => {
    ({ a, b, clients, database, app, db } = await startSettlementSuite('ferry_give_back_reverts'));
  }, 120_000);
  afterAll(() => stopSettlementSuite({ a, b, database, app }));

  const giveBackJob = (id: Hex) => solverJobOf(db, id, 'give-back');
  /** What the solver paid in gas for the request's give-backs that mined or reverted. */
  const gasPaid = (id: Hex) => solverGasPaid(db, clients, a, id, 'give-back');

  it('a give-back that reverts once sent is not sent again when the funds would not cover its gas again', async () => {
    const trap = await deployGasTrap(clients, a, 'anyone');
    const { code, body } = await postJson(app, '/quote/v2', {
      ...ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(0xc1)),
      useDepositAddress: true,
      refundTo: trap,
    });
    expect(code).toBe(200);
    const quote = body as { steps: { depositAddress: Address }[]; protocol: { v2: { orderId: Hex } } };
    const id = quote.protocol.v2.orderId;
    const address = quote.steps[0].depositAddress;
    // Worth 400,000 gas: more than one give-back's gas (about 200,000 estimated, a fifth more signed), less than two.
    const amount = (await clients.reader(a.chainId).getGasPrice()) * 400_000n;

    const stop = frontRunSolver(clients, a, trap);
    try {
      // A plain transfer of the wrong amount: refused (strict), to be given back to the trap.
      await clients.send(a.chainId, a.accounts.relayer.privateKey, address, '0x', amount);
      await waitFor(
        async () => (await eventTypesOf(db, id)).includes('DepositAddressTransferRefused'),
        'the transfer refused',
      );
      // The first give-back is sent and reverts; then either the job stops, or the solver sends another.
      await waitFor(
        async () => {
          const job = await giveBackJob(id);
          const { reverted } = await gasPaid(id);
          return reverted > 0 && (job?.state !== 'pending' || reverted > 1);
        },
        'a give-back reverted, and the job stopped or sent another',
        60_000,
      ).catch(async (error: unknown) => {
        const journal = await journalOf(db, id);
        throw new Error(
          `${String(error)}: ${JSON.stringify(await giveBackJob(id))} ${JSON.stringify(journal.map((e) => [e.purpose, e.state]))}`,
        );
      });
      // Time for the job to send one more, if it would.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    } finally {
      await stop();
    }

    // One give-back reverted, paid for; a second would take the solver's spending on these funds past their worth.
    const { paid, reverted } = await gasPaid(id);
    expect({ reverted, overpaid: paid > amount }).toEqual({ reverted: 1, overpaid: false });
    expect((await giveBackJob(id))?.state).toBe('done');
    // Left at the address, for its recovery address.
    expect(await clients.balanceOf(a.chainId, ETH, address)).toBe(amount);
  }, 120_000);
});
