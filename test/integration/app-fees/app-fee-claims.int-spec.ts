import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { readArtifact } from '../../../scripts/devnet/deploy-devnet.js';
import { AppFeesWorker } from '../../../src/app-fees/app-fees.worker.js';
import { AppFeeAccountAggregate } from '../../../src/app-fees/domain/app-fee-account.aggregate.js';
import type { AppFeeClaimOpenedData } from '../../../src/app-fees/domain/app-fee-account-events.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import type { FillSucceededData } from '../../../src/requests/domain/request-events.js';
import type { Clock } from '../../../src/common/clock.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import {
  ChainClients,
  postJson,
  requestStatus,
  settlementEnv,
  waitFor,
} from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { deposit, type Quote } from '../settlement/settlement-support.js';

/** Hardhat's account #6: deploys this suite's wallets (account #0's nonces belong to the devnet's own contracts). */
const DEPLOYER = privateKeyToAccount('0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e');

const CLAIMER = privateKeyToAccount(`0x${'a7'.repeat(32)}`);
const RACER = privateKeyToAccount(`0x${'a8'.repeat(32)}`);
const STRANGER = privateKeyToAccount(`0x${'a9'.repeat(32)}`);
const AMOUNT = 100_000_000n; // 100 USDC bridged; 1% app fee = 1 USDC

interface Balance {
  balances: { amount: string; currency: { chainId: number; address: string } }[];
  totals: { accrued: string; pending: string; withdrawn: string };
}
interface ClaimStep {
  id: string;
  kind: string;
  requestId: Hex;
  items: {
    status: string;
    data: {
      sign: { signatureKind: string; message: Hex };
      post: { endpoint: string; method: string; body: { kind: string; requestId: Hex } };
    };
  }[];
}

/**
 * App-fee claims on real local chains: fees accrue from a real USDC bridge, then each claim is signed (an EOA, an
 * ERC-1271 wallet) and paid in real test USDC from the treasury (the solver key, by default) through the journal.
 * Attacks: a wrong signer, a reused signature, two claims racing for one balance, an expired claim, a payout the
 * treasury cannot make.
 */
describe('app-fee claims on local chains', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let app: TestApp;
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
  let rejectingWallet: Address;
  let requestId: Hex;

  const balanceOf = async (address: string): Promise<Balance> => {
    await waitForProjections(app);
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const available = async (address: string) => BigInt((await balanceOf(address)).balances[0].amount);
  const claim = async (
    address: string,
    body: Record<string, unknown> = { chainId: b.chainId, currency: b.deployment.usdc },
  ) => postJson(app, `/app-fees/${address}/claim`, body);
  const submit = async (claimId: Hex, signature: Hex | null, kind = 'claim') => {
    await waitForProjections(app);
    const url = signature === null ? '/execute/permits' : `/execute/permits?signature=${signature}`;
    return postJson(app, url, { kind, requestId: claimId });
  };
  const claimsOf = async (address: string) => {
    await waitForProjections(app);
    return (await app.http.inject({ method: 'GET', url: `/app-fees/${address}/claims` })).json() as {
      claims: {
        claimId: string;
        status: string;
        txHash: string | null;
        amount: string;
        payoutAmount: string;
      }[];
    };
  };
  const eventCount = async () =>
    Number(
      (await app.app.get<Database>(DATABASE).query<{ n: string }>('SELECT count(*)::text AS n FROM events'))
        .rows[0].n,
    );
  const usdcOn31338 = (owner: Address) => clients.balanceOf(b.chainId, b.deployment.usdc, owner);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    const wallet = readArtifact('SmartWallet');
    // A wallet owned by a stranger: the user's signature is not its signature.
    const hash = await clients.wallet(b.chainId).deployContract({
      account: DEPLOYER,
      chain: null,
      abi: wallet.abi,
      bytecode: wallet.bytecode,
      args: [STRANGER.address],
    });
    rejectingWallet = (await clients.reader(b.chainId).waitForTransactionReceipt({ hash })).contractAddress!;
    app = await startTestApp(settlementEnv(a, b), [], clock);

    // One real USDC bridge a → b pays app fees to five recipients.
    const { code, body } = await postJson(app, '/quote/v2', {
      user: a.accounts.user.address,
      recipient: a.accounts.user.address,
      originChainId: a.chainId,
      destinationChainId: b.chainId,
      originCurrency: a.deployment.usdc,
      destinationCurrency: b.deployment.usdc,
      amount: AMOUNT.toString(),
      tradeType: 'EXACT_INPUT',
      appFees: [
        { recipient: CLAIMER.address, fee: '100' },
        { recipient: RACER.address, fee: '100' },
        { recipient: b.deployment.smartWallet, fee: '50' },
        { recipient: rejectingWallet, fee: '50' },
      ],
    });
    expect(code).toBe(200);
    const quote = body as Quote;
    requestId = quote.protocol.v2.orderId;
    await deposit(clients, a, quote);
    await waitFor(
      async () => (await requestStatus(app, quote.protocol.v2.orderId)).status === 'success',
      'success',
      60_000,
    );
    await waitFor(async () => (await available(rejectingWallet)) > 0n, 'accrual', 30_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('accrues what the request records as paid app fees, for each recipient', async () => {
    const stream = await app.app
      .get<symbol, EventStore>(EVENT_STORE)
      .readStream(`request-${requestId.toLowerCase()}`);
    const fill = stream.find((event) => event.type === 'FillSucceeded')!.data as FillSucceededData;
    expect(fill.appFees).toHaveLength(4);
    for (const fee of fill.appFees) {
      // USDC at 1 USD, 6 decimals: the fee's USD value is exactly its amount in USDC units.
      expect((await available(fee.recipient)).toString()).toBe(fee.amount);
    }
    expect(await available(CLAIMER.address)).toBe(1_000_000n);
    expect(await available(RACER.address)).toBe(1_000_000n);
    expect(await available(b.deployment.smartWallet)).toBe(500_000n);
  });

  it('griefing: claims anyone opens for an address lock nothing; the owner still claims the whole balance', async () => {
    // The attacker needs no key: opening a claim is unauthenticated. Three claims for CLAIMER's address, unsigned.
    const griefs = await Promise.all([
      claim(CLAIMER.address),
      claim(CLAIMER.address),
      claim(CLAIMER.address),
    ]);
    for (const grief of griefs) expect(grief.code).toBe(200);
    expect(await available(CLAIMER.address)).toBe(1_000_000n);
    expect((await balanceOf(CLAIMER.address)).totals.pending).toBe('0');
    // Nor does the account grow: each opened claim is its own stream; the account holds only the accrual.
    const account = await app.app
      .get<symbol, EventStore>(EVENT_STORE)
      .readStream(`app-fee-account-${CLAIMER.address.toLowerCase()}`);
    expect(account.map((event) => event.type)).toEqual(['AppFeeAccrued']);
    // The attacker cannot sign for CLAIMER: its signature over its own claim moves nothing.
    const griefId = (griefs[0].body as { steps: ClaimStep[] }).steps[0].requestId;
    const forged = await submit(griefId, await STRANGER.signMessage({ message: { raw: griefId } }));
    expect(forged.body).toMatchObject({ errorCode: 'INVALID_SIGNATURE' });
    expect(await available(CLAIMER.address)).toBe(1_000_000n);
    // The owner opens its own claim while the attacker's are open: it is answered, not NOTHING_TO_CLAIM.
    const own = await claim(CLAIMER.address);
    expect(own.code).toBe(200);
  });

  it('an EOA claim: a wrong signer and a missing signature are refused, the right one is paid once in real USDC', async () => {
    const { code, body } = await claim(CLAIMER.address);
    expect(code).toBe(200);
    const [step] = (body as { steps: ClaimStep[] }).steps;
    expect(step).toMatchObject({ id: 'authorize', kind: 'signature' });
    const claimId = step.requestId;
    expect(step.items[0].data).toEqual({
      sign: { signatureKind: 'eip191', message: claimId },
      post: { endpoint: '/execute/permits', method: 'POST', body: { kind: 'claim', requestId: claimId } },
    });
    // Opening reserves nothing: only the claim address's signature does.
    expect(await available(CLAIMER.address)).toBe(1_000_000n);
    expect((await balanceOf(CLAIMER.address)).totals.pending).toBe('0');

    const wrong = await submit(claimId, await STRANGER.signMessage({ message: { raw: claimId } }));
    expect(wrong.code).toBe(400);
    expect(wrong.body).toMatchObject({ errorCode: 'INVALID_SIGNATURE' });
    expect((await submit(claimId, null)).body).toMatchObject({ errorCode: 'INVALID_INPUT' });
    // A longer signature (a contract wallet's format) reaches verification, and fails it.
    const long = await submit(claimId, `${await STRANGER.signMessage({ message: { raw: claimId } })}00`);
    expect(long.body).toMatchObject({ errorCode: 'INVALID_SIGNATURE' });
    expect(await usdcOn31338(CLAIMER.address)).toBe(0n);

    const signature = await CLAIMER.signMessage({ message: { raw: claimId } });
    const paid = await submit(claimId, signature);
    expect(paid.code).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', requestId: claimId });
    expect(await usdcOn31338(CLAIMER.address)).toBe(1_000_000n);
    const receipt = await clients
      .reader(b.chainId)
      .getTransactionReceipt({ hash: (paid.body as { txHash: Hex }).txHash });
    expect(receipt.status).toBe('success');

    const again = await submit(claimId, signature);
    expect(again.code).toBe(409);
    expect(again.body).toMatchObject({ errorCode: 'CLAIM_ALREADY_USED' });
    expect(await usdcOn31338(CLAIMER.address)).toBe(1_000_000n);

    const balance = await balanceOf(CLAIMER.address);
    expect(balance.balances[0].amount).toBe('0');
    expect(balance.totals).toEqual({ accrued: '1000000', pending: '0', withdrawn: '1000000' });
    const { claims } = await claimsOf(CLAIMER.address);
    expect(claims.filter((row) => row.status !== 'open')).toEqual([
      expect.objectContaining({ claimId, status: 'paid', txHash: receipt.transactionHash }),
    ]);
    // The griefer's claims, signed now by the owner, find nothing left: the balance is paid once.
    const griefId = claims.find((row) => row.status === 'open')!.claimId as Hex;
    const late = await submit(griefId, await CLAIMER.signMessage({ message: { raw: griefId } }));
    expect(late.body).toMatchObject({ errorCode: 'NOTHING_TO_CLAIM' });
    expect(await usdcOn31338(CLAIMER.address)).toBe(1_000_000n);
    expect((await claim(CLAIMER.address)).body).toMatchObject({ errorCode: 'NOTHING_TO_CLAIM' });
  });

  it('a signed claim id nobody opened is 404 and nothing is appended', async () => {
    const unknown = `0x${'9c'.repeat(32)}` as Hex;
    const before = await eventCount();
    const answer = await postJson(
      app,
      `/execute/permits?signature=${await CLAIMER.signMessage({ message: { raw: unknown } })}`,
      { kind: 'claim', requestId: unknown },
    );
    expect(answer).toMatchObject({ code: 404, body: { errorCode: 'NOT_FOUND' } });
    expect(await eventCount()).toBe(before);
  });

  it('an ERC-1271 wallet claim is paid when its owner signs, and a wallet whose owner did not sign is refused', async () => {
    const wallet = b.deployment.smartWallet;
    const { body } = await claim(wallet);
    const claimId = (body as { steps: ClaimStep[] }).steps[0].requestId;
    const user = privateKeyToAccount(a.accounts.user.privateKey as Hex);
    const paid = await submit(claimId, await user.signMessage({ message: { raw: claimId } }), 'request');
    expect(paid.code).toBe(200);
    expect(await usdcOn31338(wallet)).toBe(500_000n);

    const rejected = await claim(rejectingWallet);
    const rejectedId = (rejected.body as { steps: ClaimStep[] }).steps[0].requestId;
    const refused = await submit(rejectedId, await user.signMessage({ message: { raw: rejectedId } }));
    expect(refused.code).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'INVALID_SIGNATURE' });
    expect(await usdcOn31338(rejectingWallet)).toBe(0n);
    expect((await balanceOf(rejectingWallet)).totals).toMatchObject({ pending: '0', withdrawn: '0' });
  });

  it('a signed claim whose payout a crash cut short is paid once by the resumer', async () => {
    const [open] = (await claimsOf(rejectingWallet)).claims;
    expect(open.status).toBe('open');
    // As if the signature had been accepted and the process died before the payout was journaled.
    const [opened] = await app.app
      .get<symbol, EventStore>(EVENT_STORE)
      .readStream(`app-fee-claim-${open.claimId}`);
    await app.app.get(AggregateRepository).execute(
      () => new AppFeeAccountAggregate(rejectingWallet),
      (account) =>
        account.handle({
          type: 'AuthorizeClaim',
          data: {
            claimId: open.claimId,
            signature: '0x',
            at: clock.now().toISOString(),
            opened: opened.data as AppFeeClaimOpenedData,
          },
        }),
    );
    await waitForProjections(app);
    const worker = app.app.get(AppFeesWorker);
    await worker.resume(0);
    await worker.resume(0);
    expect(await usdcOn31338(rejectingWallet)).toBe(500_000n);
    expect((await claimsOf(rejectingWallet)).claims[0]).toMatchObject({
      claimId: open.claimId,
      status: 'paid',
    });
    expect((await balanceOf(rejectingWallet)).totals).toEqual({
      accrued: '500000',
      pending: '0',
      withdrawn: '500000',
    });
  });

  it('a payout the treasury cannot make (WETH on 31337, which it does not hold) fails and gives the balance back', async () => {
    const weth = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0';
    const { code, body } = await claim(RACER.address, { chainId: a.chainId, currency: weth });
    expect(code).toBe(200);
    const claimId = (body as { steps: ClaimStep[] }).steps[0].requestId;
    const failed = await submit(claimId, await RACER.signMessage({ message: { raw: claimId } }));
    const { claims } = await claimsOf(RACER.address);
    // Reserved when signed: 1 USDC less the 0.1 USD claim fee, at 3000 USD per WETH.
    expect(claims[0]).toMatchObject({ amount: '1000000', payoutAmount: '300000000000000' });
    expect(failed.code).toBe(409);
    expect(failed.body).toMatchObject({ errorCode: 'CLAIM_PAYOUT_FAILED' });
    expect(await available(RACER.address)).toBe(1_000_000n);
    expect((await claimsOf(RACER.address)).claims[0]).toMatchObject({ claimId, status: 'failed' });
  });

  it('an unsigned claim expires: signing it late is refused, and the balance is claimable again', async () => {
    const { body: openBody } = await claim(RACER.address);
    const stale = (openBody as { steps: ClaimStep[] }).steps[0].requestId;
    offsetMs += 3_600_000;
    expect(await available(RACER.address)).toBe(1_000_000n);
    const late = await submit(stale, await RACER.signMessage({ message: { raw: stale } }));
    expect(late.code).toBe(409);
    expect(late.body).toMatchObject({ errorCode: 'CLAIM_EXPIRED' });
    expect(await available(RACER.address)).toBe(1_000_000n);
    expect((await claimsOf(RACER.address)).claims.find((row) => row.claimId === stale)).toMatchObject({
      status: 'expired',
    });
  });

  it('three signed claims of one balance at once: exactly one is paid, the others find nothing', async () => {
    const opened = await Promise.all([claim(RACER.address), claim(RACER.address), claim(RACER.address)]);
    expect(opened.map((result) => result.code)).toEqual([200, 200, 200]);
    const ids = opened.map((result) => (result.body as { steps: ClaimStep[] }).steps[0].requestId);
    const signed = await Promise.all(
      ids.map(async (id) => submit(id, await RACER.signMessage({ message: { raw: id } }))),
    );
    expect(signed.map((result) => result.code).sort()).toEqual([200, 400, 400]);
    for (const loser of signed.filter((result) => result.code === 400)) {
      expect(loser.body).toMatchObject({ errorCode: 'NOTHING_TO_CLAIM' });
    }
    expect(await usdcOn31338(RACER.address)).toBe(1_000_000n);
    expect(await available(RACER.address)).toBe(0n);
    expect((await balanceOf(RACER.address)).totals).toEqual({
      accrued: '1000000',
      pending: '0',
      withdrawn: '1000000',
    });
  });
});
