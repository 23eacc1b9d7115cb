import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AppFeeAccountAggregate } from '../../../src/app-fees/domain/app-fee-account.aggregate.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { appFeesAvailable, startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { ChainClients, postJson, settlementEnv } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';

const DUST_OWNER = privateKeyToAccount(`0x${'e1'.repeat(32)}`);
const SPIKE_OWNER = privateKeyToAccount(`0x${'e2'.repeat(32)}`);

/**
 * A claim is paid by Ferry's treasury, which pays the payout's gas, and anyone with an app-fee balance asks for it.
 * A payout worth less than that gas is refused (`CLAIM_BELOW_GAS`), when the claim is opened and again when it is
 * signed (gas may have risen since): Ferry does not pay 0.20 USD of gas to send 0.000001 USD. Real local chains.
 */
describe('app-fee claims worth less than their payout’s gas', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let db: Database;
  let fill = 0;

  const rpc = (method: string, params: unknown[] = []) =>
    clients.reader(b.chainId).request({ method, params } as never);
  const available = (address: string) => appFeesAvailable(app, address);
  /** Credits `address` `amount` USDC units, as the accrual of one fill does. */
  const credit = (address: string, amount: bigint) => {
    fill += 1;
    return app.app.get(AggregateRepository).execute(
      () => new AppFeeAccountAggregate(address),
      (account) =>
        account.handle({
          type: 'AccrueAppFee',
          data: {
            requestId: `0x${fill.toString(16).padStart(2, '0').repeat(32)}`,
            amount: amount.toString(),
            amountUsd: '0',
            usdcPrice: '1',
            accruedAt: new Date().toISOString(),
            source: { commit: String(fill), prepare: String(fill) },
          },
        }),
    );
  };
  const claim = (address: string) =>
    postJson(app, `/app-fees/${address}/claim`, { chainId: b.chainId, currency: b.deployment.usdc });
  const claimPayouts = async () =>
    Number(
      (
        await db.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM solver_transactions WHERE purpose = 'claim'`,
        )
      ).rows[0].n,
    );

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    app = await startTestApp(settlementEnv(a, b));
    db = app.app.get<Database>(DATABASE);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('refuses to open a claim of 1 USDC unit (400 CLAIM_BELOW_GAS): nothing opened, nothing sent, the balance stays', async () => {
    await credit(DUST_OWNER.address, 1n);
    expect(await available(DUST_OWNER.address)).toBe(1n);

    const { code, body } = await claim(DUST_OWNER.address);

    expect(code).toBe(400);
    expect(body).toMatchObject({
      errorCode: 'CLAIM_BELOW_GAS',
      errorData: { chainId: b.chainId, currency: b.deployment.usdc.toLowerCase(), payoutAmount: '1' },
    });
    expect(typeof (body as { message: string }).message).toBe('string');
    const opened = await db.query(`SELECT 1 FROM events WHERE event_type = 'AppFeeClaimOpened'`);
    expect(opened.rowCount).toBe(0);
    expect(await claimPayouts()).toBe(0);
    expect(await available(DUST_OWNER.address)).toBe(1n);
  });

  it('refuses at signing a claim that gas made worth less than its payout since it was opened: nothing paid, the balance claimable again', async () => {
    await credit(SPIKE_OWNER.address, 1_000_000n); // 1 USDC: worth its gas at the devnet's 1 gwei
    const opened = await claim(SPIKE_OWNER.address);
    expect(opened.code).toBe(200);
    const claimId = (opened.body as { steps: { requestId: Hex }[] }).steps[0].requestId;

    // Gas on the payout chain rises 90-fold (under its 100 gwei fee cap): a USDC transfer now costs several dollars.
    await rpc('hardhat_setNextBlockBaseFeePerGas', ['0x14f46b0400']);
    await rpc('evm_mine');
    await waitForProjections(app);
    const signature = await SPIKE_OWNER.signMessage({ message: { raw: claimId } });
    const { code, body } = await postJson(app, `/execute/permits?signature=${signature}`, {
      kind: 'claim',
      requestId: claimId,
    });

    expect(code).toBe(400);
    expect(body).toMatchObject({ errorCode: 'CLAIM_BELOW_GAS', errorData: { payoutAmount: '1000000' } });
    expect(await claimPayouts()).toBe(0);
    expect(await clients.balanceOf(b.chainId, b.deployment.usdc, SPIKE_OWNER.address)).toBe(0n);
    expect(await available(SPIKE_OWNER.address)).toBe(1_000_000n);
  });
});
