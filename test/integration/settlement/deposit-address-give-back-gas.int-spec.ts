import type { Address, Hex } from 'viem';
import type { Database } from '../../../src/database/database.js';
import type { TestApp } from '../../support/app.js';
import { type ChainClients, postJson, waitFor } from '../../support/chain-clients.js';
import type { Devnet } from '../../support/devnet.js';
import type { TestDatabase } from '../../support/postgres.js';
import { startSettlementSuite, stopSettlementSuite } from '../../support/settlement-suite.js';
import {
  deployGasBurner,
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  solverJobOf,
} from './settlement-support.js';

/**
 * Rounds of the gas burner: it burns about 90,000 gas on receipt, and a give-back to it (the receiver deployed, then
 * the transfer) takes about 285,000 gas, under the journal's GIVE_BACK_GAS_CAP.
 */
const BURNER_ROUNDS = 3_400;
/** Rounds of a burner no give-back may pay for: about 1,000,000 gas on receipt. */
const HEAVY_ROUNDS = 38_000;

/**
 * Give-backs from deposit addresses under attack, on two real local chains: the refused transfer goes back to
 * `refundTo`, an address the user chose, and a contract there may burn gas on receipt. A give-back must be weighed
 * at the gas it would really be signed with (as refunds are, decision 0024), not at a fixed 150,000, and never pay
 * without bound for what the recipient burns.
 */
describe('deposit-address give-backs weighed at their own gas', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let app: TestApp;
  let db: Database;
  let seed = 0xb0;

  beforeAll(async () => {
    ({ a, b, clients, database, app, db } = await startSettlementSuite('ferry_give_back_gas'));
  }, 120_000);
  afterAll(() => stopSettlementSuite({ a, b, database, app }));

  /** A strict deposit address whose refunds (and recovery) go to `refundTo`. */
  const addressQuote = async (refundTo: Address) => {
    const { code, body } = await postJson(app, '/quote/v2', {
      ...ethQuoteBody(a, b, a.accounts.user.address, freshRecipient(seed++)),
      useDepositAddress: true,
      refundTo,
    });
    expect(code).toBe(200);
    const quote = body as { steps: { depositAddress: Address }[]; protocol: { v2: { orderId: Hex } } };
    return { id: quote.protocol.v2.orderId, address: quote.steps[0].depositAddress };
  };
  /** A plain transfer of the wrong amount from another wallet: refused (strict), to be given back. */
  const payWrongAmount = async (id: Hex, address: Address, amount: bigint) => {
    await clients.send(a.chainId, a.accounts.relayer.privateKey, address, '0x', amount);
    await waitFor(
      async () => (await eventTypesOf(db, id)).includes('DepositAddressTransferRefused'),
      'the transfer refused',
    );
  };
  const giveBackJob = (id: Hex) => solverJobOf(db, id, 'give-back');
  it('one worth more than 150,000 gas but less than its give-back’s gas (the receiver’s deploy, what its refundTo burns) is not given back: the solver spends nothing', async () => {
    const burner = await deployGasBurner(clients, a, BURNER_ROUNDS);
    const { id, address } = await addressQuote(burner);
    const gasPrice = await clients.reader(a.chainId).getGasPrice();
    // Worth 200,000 gas: above the fixed 150,000, below the ~285,000 its give-back burns.
    const amount = gasPrice * 200_000n;
    const solverNonce = await clients
      .reader(a.chainId)
      .getTransactionCount({ address: a.accounts.solver.address });

    await payWrongAmount(id, address, amount);
    await waitFor(async () => (await giveBackJob(id))?.state === 'done', 'the give-back job done', 30_000);

    expect(await journalOf(db, id)).toEqual([]);
    expect(await clients.reader(a.chainId).getTransactionCount({ address: a.accounts.solver.address })).toBe(
      solverNonce,
    );
    // Left at the address for its recovery address.
    expect(await clients.balanceOf(a.chainId, ETH, address)).toBe(amount);
  }, 60_000);

  it('one worth more than its give-back’s gas is given back, to the contract all the same', async () => {
    const burner = await deployGasBurner(clients, a, BURNER_ROUNDS);
    const { id, address } = await addressQuote(burner);
    const amount = (await clients.reader(a.chainId).getGasPrice()) * 2_000_000n;

    await payWrongAmount(id, address, amount);
    await waitFor(async () => (await giveBackJob(id))?.state === 'done', 'the give-back job done', 30_000);

    expect((await journalOf(db, id)).map((entry) => [entry.purpose, entry.state])).toEqual([
      ['give-back', 'mined'],
    ]);
    expect(await clients.balanceOf(a.chainId, ETH, burner)).toBe(amount);
  }, 60_000);

  it('one whose refundTo burns about 1,000,000 gas is never given back, whatever it is worth: left for the recovery address', async () => {
    const burner = await deployGasBurner(clients, a, HEAVY_ROUNDS);
    const { id, address } = await addressQuote(burner);
    const amount = 10n ** 16n; // worth millions of gas: not dust

    await payWrongAmount(id, address, amount);
    // Refused by the journal's cap before it is signed (retried, then given up): an attempt that failed otherwise (an
    // RPC slow under load) is retried too, so this waits for the refusal itself.
    await waitFor(
      async () => {
        const job = await giveBackJob(id);
        const refused = /more than the \d+ a payment/.test(job?.last_error ?? '');
        return refused || job?.state === 'done' || (await journalOf(db, id)).length > 0;
      },
      'the give-back to be refused for its gas',
      60_000,
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(await giveBackJob(id))}`);
    });

    expect(await journalOf(db, id)).toEqual([]);
    expect(await clients.balanceOf(a.chainId, ETH, address)).toBe(amount);
  }, 90_000);
});
