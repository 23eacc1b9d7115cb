import { type Address, encodeFunctionData, type Hex, parseEther } from 'viem';
import { erc20Abi } from '../../../src/chains/abi/erc20.js';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { startTestApp, type TestApp } from '../../support/app.js';
import { ChainClients, requestStatus, settlementEnv, waitFor } from '../../support/chain-clients.js';
import { type Devnet, startDevnets } from '../../support/devnet.js';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import {
  ETH,
  ethQuoteBody,
  eventTypesOf,
  freshRecipient,
  journalOf,
  type Quote,
} from './settlement-support.js';

interface AddressQuote extends Quote {
  readonly steps: (Quote['steps'][number] & { depositAddress: string })[];
}

/**
 * Deposit addresses end to end on two real local chains: a user pays the quoted address with a plain transfer, the
 * watcher sees it in the block's transactions, the solver deploys the receiver there and sweeps the funds into the
 * depository with the order id (journaled), the deposit is credited and filled, and the records carry the depositor
 * and the transfer's hash. Funds the request cannot use go back to `refundTo`, else the sender.
 */
describe('deposit addresses on local chains', () => {
  let a: Devnet;
  let b: Devnet;
  let clients: ChainClients;
  let database: TestDatabase;
  let app: TestApp;
  let db: Database;
  let key: { id: string; key: string };
  let receiver: WebhookReceiver;
  let seed = 0x40;

  const quote = async (extra: Record<string, unknown> = {}) => {
    const recipient = freshRecipient(seed++);
    const response = await app.http.inject({
      method: 'POST',
      url: '/quote/v2',
      headers: { 'x-api-key': key.key },
      payload: {
        ...ethQuoteBody(a, b, a.accounts.user.address, recipient),
        useDepositAddress: true,
        ...extra,
      },
    });
    return { code: response.statusCode, body: response.json(), recipient };
  };
  const addressQuote = async (extra: Record<string, unknown> = {}) => {
    const { code, body, recipient } = await quote(extra);
    expect(code).toBe(200);
    const q = body as AddressQuote;
    const address = q.steps[0].depositAddress as Address;
    return {
      quote: q,
      id: q.protocol.v2.orderId,
      address,
      recipient,
      amount: BigInt(q.details.currencyIn.amount),
    };
  };
  const pay = (from: Hex, to: Address, amount: bigint) =>
    clients.send(a.chainId, from, to, undefined, amount);
  const balance = (chainId: number, owner: Address) => clients.balanceOf(chainId, ETH, owner);

  beforeAll(async () => {
    [a, b] = await startDevnets();
    clients = new ChainClients([a, b]);
    database = await createTestDatabase('ferry_deposit_addresses');
    receiver = await new WebhookReceiver().start();
    app = await startTestApp(
      settlementEnv(a, b, { WEBHOOK_RETRY_BASE_MS: '20', WEBHOOK_RETRY_MAX_MS: '100' }),
      [],
      undefined,
      database,
    );
    db = app.app.get<Database>(DATABASE);
    key = await app.app.get(ApiKeysService).create({ label: 'depaddr', webhookUrl: receiver.url });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await receiver?.stop();
    await database?.drop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('a plain transfer to the quoted address: receiver deployed there, swept with the order id, filled, success; the records carry depositor and depositTxHash', async () => {
    const { quote: q, id, address, recipient, amount } = await addressQuote();
    expect(q.steps.map((step) => [step.kind, step.items[0].data.to])).toEqual([['transaction', address]]);
    expect(await clients.reader(a.chainId).getCode({ address })).toBeUndefined();

    const transfer = await pay(a.accounts.user.privateKey, address, amount);
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success', 30_000);

    expect(await clients.reader(a.chainId).getCode({ address })).toMatch(/^0x[0-9a-f]{10,}/);
    expect(await balance(a.chainId, address)).toBe(0n);
    expect(await balance(b.chainId, recipient)).toBe(BigInt(q.details.currencyOut.amount));
    expect(await eventTypesOf(db, id)).toEqual([
      'RequestQuoted',
      'DepositAddressFunded',
      'DepositDetected',
      'DepositConfirmed',
      'FillSubmitted',
      'FillSucceeded',
    ]);
    const journal = await journalOf(db, id);
    expect(journal.map((entry) => [entry.purpose, entry.state])).toEqual([
      ['sweep', 'mined'],
      ['fill', 'mined'],
    ]);
    const confirmed = await db.query<{ depositor: string; depository: string; tx: string }>(
      `SELECT data->>'depositor' AS depositor, data->>'depository' AS depository, data->>'txHash' AS tx
         FROM events WHERE stream_id = $1 AND event_type = 'DepositConfirmed'`,
      [`request-${id.toLowerCase()}`],
    );
    expect(confirmed.rows[0]).toMatchObject({
      depositor: a.accounts.user.address,
      depository: a.deployment.depository,
      tx: journal[0].tx_hash,
    });

    let record: { depositAddress: Record<string, unknown> } | undefined;
    await waitFor(async () => {
      const response = await app.http.inject({
        method: 'GET',
        url: `/requests/v3?id=${id}`,
        headers: { 'x-api-key': key.key },
      });
      record = (
        response.json() as { requests: { status: string; depositAddress: Record<string, unknown> }[] }
      ).requests.find((r) => r.status === 'success');
      return record;
    }, 'the v3 record');
    expect(record!.depositAddress).toEqual({
      address,
      type: 'strict',
      depositor: a.accounts.user.address,
      depositTxHash: transfer.transactionHash,
      recoveryAddress: a.accounts.user.address,
    });
    const webhookOf = (status: string) =>
      receiver.received
        .map((webhook) => JSON.parse(webhook.body) as { data: { status: string; depositAddress: unknown } })
        .find((body) => body.data.status === status);
    const success = await waitFor(async () => webhookOf('success'), 'the success webhook');
    expect(success.data.depositAddress).toEqual({
      address,
      depositAddressType: 'strict',
      depositor: a.accounts.user.address,
      depositTxHash: transfer.transactionHash,
    });
  }, 60_000);

  it('strict with the wrong amount: nothing is filled, the transfer goes back to refundTo', async () => {
    const refundTo = freshRecipient(0x90);
    const { id, address, recipient, amount } = await addressQuote({ refundTo });
    await pay(a.accounts.user.privateKey, address, amount + 1n);
    await waitFor(async () => (await balance(a.chainId, refundTo)) === amount + 1n, 'the give-back', 30_000);
    expect(await balance(a.chainId, address)).toBe(0n);
    expect(await balance(b.chainId, recipient)).toBe(0n);
    expect(await eventTypesOf(db, id)).toEqual(['RequestQuoted', 'DepositAddressTransferRefused']);
    expect((await journalOf(db, id)).map((entry) => [entry.purpose, entry.state])).toEqual([
      ['give-back', 'mined'],
    ]);
    expect((await requestStatus(app, id)).status).toBe('waiting');
  }, 60_000);

  it('open, paid by another wallet with a surplus: filled as quoted, the surplus back to the sender (no refundTo)', async () => {
    const { id, address, recipient, amount, quote: q } = await addressQuote({ depositAddressType: 'open' });
    const payer = a.accounts.relayer;
    const surplus = parseEther('0.001');
    await pay(payer.privateKey, address, amount + surplus);
    await waitFor(async () => (await requestStatus(app, id)).status === 'success', 'success', 30_000);
    await waitFor(async () => (await balance(a.chainId, address)) === 0n, 'the surplus given back', 30_000);
    expect(await balance(b.chainId, recipient)).toBe(BigInt(q.details.currencyOut.amount));
    const journal = await journalOf(db, id);
    expect(journal.map((entry) => entry.purpose).sort()).toEqual(['fill', 'give-back', 'sweep']);
    const givenBack = await db.query<{ data: string }>(
      `SELECT data FROM solver_transactions WHERE request_id = $1 AND purpose = 'give-back'`,
      [id.toLowerCase()],
    );
    // giveBack(orderId, mode, recovery, to = the payer, amount = the surplus)
    expect(givenBack.rows[0].data.toLowerCase()).toContain(payer.address.slice(2).toLowerCase());
    expect(givenBack.rows[0].data).toContain(surplus.toString(16).padStart(64, '0'));
  }, 60_000);

  it('another currency (USDC sent to the address) is refused and given back to refundTo in that currency', async () => {
    const refundTo = freshRecipient(0x91);
    const { id, address, recipient } = await addressQuote({ refundTo });
    const usdc = a.deployment.usdc;
    await clients.send(
      a.chainId,
      a.accounts.user.privateKey,
      usdc,
      encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [address, 3_000_000n] }),
    );
    await waitFor(
      async () => (await clients.balanceOf(a.chainId, usdc, refundTo)) === 3_000_000n,
      'the USDC given back',
      30_000,
    );
    expect(await clients.balanceOf(a.chainId, usdc, address)).toBe(0n);
    const refused = await db.query<{ reason: string; currency: string }>(
      `SELECT data->>'reason' AS reason, data->>'currency' AS currency FROM events
        WHERE stream_id = $1 AND event_type = 'DepositAddressTransferRefused'`,
      [`request-${id.toLowerCase()}`],
    );
    expect(refused.rows).toEqual([{ reason: 'WRONG_CURRENCY', currency: usdc }]);
    // The USDC arrives when the give-back mines; the journal marks it mined when the job sees it settle, a bit later.
    await waitFor(
      async () => (await journalOf(db, id)).every((entry) => entry.state === 'mined'),
      'the give-back settled in the journal',
    );
    expect((await journalOf(db, id)).map((entry) => [entry.purpose, entry.state])).toEqual([
      ['give-back', 'mined'],
    ]);
    expect(await balance(b.chainId, recipient)).toBe(0n);
  }, 60_000);

  it('dust sent to a deposit address is not given back (it would cost the solver more gas than it returns)', async () => {
    const { id, address } = await addressQuote();
    await pay(a.accounts.relayer.privateKey, address, 1_000n);
    await waitFor(
      async () => (await eventTypesOf(db, id)).includes('DepositAddressTransferRefused'),
      'the transfer refused',
    );
    await waitFor(
      async () =>
        (
          await db.query(
            `SELECT 1 FROM solver_jobs WHERE request_id = $1 AND kind = 'give-back' AND state = 'done'`,
            [id.toLowerCase()],
          )
        ).rowCount === 1,
      'the give-back job done',
    );
    expect(await journalOf(db, id)).toEqual([]);
    expect(await balance(a.chainId, address)).toBe(1_000n); // left for the recovery address
  });

  it.each([
    ['an ERC-20 bridge', { originCurrency: 'usdc', destinationCurrency: 'usdc', amount: '5000000' }],
    ['a swap', { destinationCurrency: 'usdc' }],
  ])(
    'refuses %s with useDepositAddress: 400 DEPOSIT_ADDRESS_UNAVAILABLE, nothing recorded',
    async (_, body) => {
      const usdc = (devnet: Devnet) => devnet.deployment.usdc;
      const payload = Object.fromEntries(
        Object.entries(body).map(([field, value]) => [
          field,
          value === 'usdc' ? usdc(field === 'originCurrency' ? a : b) : value,
        ]),
      );
      const before = (await db.query('SELECT 1 FROM events')).rowCount;
      const { code, body: error } = await quote(payload);
      expect(code).toBe(400);
      expect(error).toMatchObject({ errorCode: 'DEPOSIT_ADDRESS_UNAVAILABLE' });
      expect((await db.query('SELECT 1 FROM events')).rowCount).toBe(before);
    },
  );

  it('refuses fee sponsorship with a deposit address (400)', async () => {
    const { code, body } = await quote({ sponsoredFeeComponents: ['execution'] });
    expect(code).toBe(400);
    expect(body).toMatchObject({ errorCode: 'SPONSORSHIP_NOT_ALLOWED' });
  });

  // Last: it moves chain a's clock past the quote's expiry.
  it('a transfer after the quote expired is not filled: it goes back to the sender', async () => {
    const { id, address, recipient, amount } = await addressQuote();
    await a.request('evm_increaseTime', [700]);
    const payer = a.accounts.relayer;
    await pay(payer.privateKey, address, amount);
    await waitFor(async () => (await balance(a.chainId, address)) === 0n, 'the give-back', 30_000);
    const refused = await db.query<{ reason: string }>(
      `SELECT data->>'reason' AS reason FROM events WHERE stream_id = $1 AND event_type = 'DepositAddressTransferRefused'`,
      [`request-${id.toLowerCase()}`],
    );
    expect(refused.rows).toEqual([{ reason: 'DEPOSIT_AFTER_EXPIRY' }]);
    expect(await balance(b.chainId, recipient)).toBe(0n);
  }, 60_000);
});
