import type { Hash, Hex } from 'viem';
import { ManualClock } from '../../../src/common/clock.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, settlementEnv, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { depositErc20For, eventTypesOf, journalOf } from '../settlement/settlement-support.js';
import { permitUser, quotedPermit } from '../../support/permits.js';

/**
 * A gasless permit whose `POST /execute/permits` failed after the relayer journaled its deposit (held, `signed`) and
 * before it released it: the append of its `SubmitDeposit` failed, or the release itself. The held entry reserves
 * the relayer's nonce on the chain, so every later relayer transaction there waits behind it: all gasless deposits
 * of the chain stop. It must be released while its request still takes the deposit, else voided and its nonce
 * filled, and never sent once its quote has expired. Real devnets (automine: a nonce past a gap is refused), the
 * real relayer and journal, real PostgreSQL.
 */
describe('a relayer permit entry left held by a failed permit', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let db: Database;
  const clock = new ManualClock(new Date());
  let seed = 0xc1;

  /** A fresh user holding `usdc` of chain a's USDC and no ether: it can only deposit through a permit. */
  const fundedUser = (usdc: bigint) => permitUser(clients, a, seed++, usdc);
  /** A funded user's `usePermit` quote of `amount`, signed: the permit ready to post. */
  const signedPermit = async (amount: bigint) => quotedPermit(app, a, b, await fundedUser(amount), amount);
  /** Makes the database refuse what `when` names (a trigger's WHEN on `table`) until `allow` drops it. */
  const refuse = async (name: string, table: string, when: string) => {
    await db.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused (test)'; END $$`);
    await db.query(
      `CREATE TRIGGER ${name} BEFORE INSERT OR UPDATE ON ${table} FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION ${name}()`,
    );
    return async () => {
      await db.query(`DROP TRIGGER ${name} ON ${table}`);
      await db.query(`DROP FUNCTION ${name}()`);
    };
  };
  const refuseDepositSubmitted = (name: string, id: Hex) =>
    refuse(
      name,
      'events',
      `NEW.event_type = 'DepositSubmitted' AND NEW.stream_id = 'request-${id.toLowerCase()}'`,
    );
  const receiptOf = (hash: string) =>
    clients
      .reader(a.chainId)
      .getTransactionReceipt({ hash: hash as Hash })
      .catch(() => null);
  /** Posts a permit of a fresh user and waits for its deposit to mine: the relayer is not stalled on chain a. */
  const laterPermitMines = async () => {
    const later = await signedPermit(1_000_000n);
    const answer = await later.execute();
    expect(answer.code).toBe(200);
    const hash = (answer.body as { txHash: string }).txHash;
    const receipt = await waitFor(
      () => receiptOf(hash),
      'a later permit deposit of the relayer to mine',
      45_000,
    );
    expect(receipt.status).toBe('success');
  };
  /** The held permit's entry, once the sweep has dealt with it (it is no longer `signed`). */
  const settledEntry = (id: Hex) =>
    waitFor(
      async () => {
        const entries = await journalOf(db, id);
        return entries.length > 0 && entries[0].state !== 'signed' ? entries : null;
      },
      `the held permit entry of ${id} to be released or abandoned`,
      45_000,
    );

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(
      settlementEnv(a, b, { RELAYER_PRIVATE_KEY: a.accounts.relayer.privateKey }),
      [],
      clock,
    );
    db = app.app.get<Database>(DATABASE);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('an error before SubmitDeposit is recorded: later permits of the chain still mine, and the held deposit is released while its request still takes it', async () => {
    const held = await signedPermit(2_000_000n);
    const allow = await refuseDepositSubmitted('held_refuse_submitted', held.id);
    const failed = await held.execute();
    expect(failed.code).toBeGreaterThanOrEqual(500);
    expect((await journalOf(db, held.id)).map((entry) => [entry.purpose, entry.state])).toEqual([
      ['permit', 'signed'],
    ]);
    expect(await eventTypesOf(db, held.id)).toEqual(['RequestQuoted']);
    await allow();

    await laterPermitMines();

    // Its quote is still valid and the request still waits for it: the user's permit deposit is sent after all.
    const [entry] = await settledEntry(held.id);
    expect(entry.state).not.toBe('void');
    expect(await eventTypesOf(db, held.id)).toContain('DepositSubmitted');
    const receipt = await waitFor(() => receiptOf(entry.tx_hash), 'the held permit deposit to mine', 30_000);
    expect(receipt.status).toBe('success');
    expect(await clients.balanceOf(a.chainId, a.deployment.usdc, held.user)).toBe(0n);
  });

  it('an error after SubmitDeposit was recorded (its release failed): the request took the deposit, so it is released', async () => {
    const held = await signedPermit(2_000_000n);
    const allow = await refuse(
      'held_refuse_release',
      'solver_transactions',
      `NEW.state = 'broadcast' AND NEW.request_id = '${held.id.toLowerCase()}'`,
    );
    const failed = await held.execute();
    expect(failed.code).toBeGreaterThanOrEqual(500);
    expect(await eventTypesOf(db, held.id)).toEqual(['RequestQuoted', 'DepositSubmitted']);
    expect((await journalOf(db, held.id)).map((entry) => entry.state)).toEqual(['signed']);
    await allow();

    const [entry] = await settledEntry(held.id);
    const receipt = await waitFor(() => receiptOf(entry.tx_hash), 'the held permit deposit to mine', 30_000);
    expect(receipt.status).toBe('success');
    await laterPermitMines();
  });

  it('a held deposit whose request took a direct deposit meanwhile is voided and its nonce filled, never sent', async () => {
    const held = await signedPermit(2_000_000n);
    const allow = await refuseDepositSubmitted('held_refuse_moved_on', held.id);
    try {
      expect((await held.execute()).code).toBeGreaterThanOrEqual(500);
      const [{ tx_hash: heldHash }] = await journalOf(db, held.id);
      // Anyone may deposit for any request id: the request now has a deposit, and refuses the permit's for good.
      await depositErc20For(clients, a, held.id, a.deployment.usdc, 2_000_000n);

      // The request's own fill (of the direct deposit) is journaled too: the solver's, not the relayer's.
      const entries = (await settledEntry(held.id)).filter((entry) => entry.purpose !== 'fill');
      expect(entries.map((entry) => [entry.purpose, entry.state])).toEqual([
        ['permit', 'void'],
        ['gap', expect.stringMatching(/^(broadcast|mined)$/)],
      ]);
      const filler = await waitFor(() => receiptOf(entries[1].tx_hash), 'the nonce filler to mine', 30_000);
      expect(filler.status).toBe('success');
      expect(await receiptOf(heldHash)).toBeNull();
      expect(await clients.balanceOf(a.chainId, a.deployment.usdc, held.user)).toBe(2_000_000n);
      // Posted again, it is refused: the filler journaled under the permit's job is not its deposit.
      expect(await held.execute()).toMatchObject({ code: 409, body: { errorCode: 'CONFLICT' } });
    } finally {
      await allow();
    }
  });

  it('a held deposit whose quote has expired is voided and its nonce filled, never sent', async () => {
    const held = await signedPermit(2_000_000n);
    // Nothing takes this deposit: its request's SubmitDeposit is refused until the test ends.
    const allow = await refuseDepositSubmitted('held_refuse_expired', held.id);
    try {
      expect((await held.execute()).code).toBeGreaterThanOrEqual(500);
      const [{ tx_hash: heldHash }] = await journalOf(db, held.id);
      clock.set(new Date((held.validBefore + 1) * 1000));

      const entries = await settledEntry(held.id);
      expect(entries.map((entry) => [entry.purpose, entry.state])).toEqual([
        ['permit', 'void'],
        ['gap', expect.stringMatching(/^(broadcast|mined)$/)],
      ]);
      expect(entries[1].nonce).toBe(entries[0].nonce);
      const filler = await waitFor(() => receiptOf(entries[1].tx_hash), 'the nonce filler to mine', 30_000);
      expect(filler.status).toBe('success');
      expect(await receiptOf(heldHash)).toBeNull();
      expect(await clients.balanceOf(a.chainId, a.deployment.usdc, held.user)).toBe(2_000_000n);

      await laterPermitMines();
    } finally {
      await allow();
    }
  });
});
