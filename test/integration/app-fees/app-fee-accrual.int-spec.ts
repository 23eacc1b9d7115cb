import { CommandBus } from '@nestjs/cqrs';
import { ACCRUAL_CONSUMER } from '../../../src/app-fees/app-fee-accrual.js';
import { findProjection } from '../../../projections/index.js';
import { auditProjection } from '../../../projections/runner/audit.js';
import { AppFeesWorker } from '../../../src/app-fees/app-fees.worker.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import { ExecuteRequestCommand } from '../../../src/requests/commands/execute-request.command.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import type { RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { waitFor } from '../../support/chain-clients.js';

const RECIPIENT_A = '0x00000000000000000000000000000000000000a1';
const RECIPIENT_B = '0x00000000000000000000000000000000000000B2';

/** A sample quote whose app fees go to A twice (50 and 10 bps) and to B once (30 bps). */
function quoteWithFees(n: number): RequestQuotedData {
  const quote = sampleQuote(n, { appFeeBps: 0 });
  const units = BigInt(quote.currencyIn.amount);
  const fee = (recipient: string, bps: number) => ({
    recipient,
    bps: String(bps),
    amount: ((units * BigInt(bps)) / 10_000n).toString(),
    amountFormatted: '0',
  });
  return { ...quote, appFees: [fee(RECIPIENT_A, 50), fee(RECIPIENT_B, 30), fee(RECIPIENT_A, 10)] };
}

interface BalanceBody {
  balances: {
    amount: string;
    amountUsd: string;
    currency: { chainId: number; symbol: string; address: string };
  }[];
  totals: { accrued: string };
}

describe('app-fee accrual from the log', () => {
  let app: TestApp;
  let db: Database;
  let store: EventStore;

  const run = async (requestId: string, commands: RequestCommand[]) => {
    for (const command of commands) {
      await app.app.get(CommandBus).execute(new ExecuteRequestCommand(requestId, command));
    }
  };
  const balance = async (address: string): Promise<BalanceBody> => {
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const accrualCaughtUp = async () => {
    const head = await store.headPosition();
    const { rows } = await db.query<{ commit_position: string; prepare_position: string }>(
      'SELECT commit_position::text, prepare_position::text FROM projection_checkpoints WHERE name = $1',
      [ACCRUAL_CONSUMER],
    );
    return rows[0] && BigInt(rows[0].prepare_position) >= head.prepare;
  };
  const settled = async () => {
    await waitFor(accrualCaughtUp, 'the accrual consumer', 15_000);
    await waitForProjections(app);
  };

  beforeAll(async () => {
    app = await startTestApp();
    db = app.app.get(DATABASE);
    store = app.app.get(EVENT_STORE);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  it('credits each recipient of a successful request once, in USDC of the base chain, at the fill-time USD value', async () => {
    const quote = quoteWithFees(301);
    await run(quote.requestId, sampleLifecycle(quote, 301));
    await settled();
    await waitFor(async () => (await balance(RECIPIENT_A)).balances[0].amount !== '0', 'A credited', 15_000);
    await settled();

    const units = BigInt(quote.currencyIn.amount); // USDC at 1 USD: the USD value in USDC units is exact
    const a = await balance(RECIPIENT_A);
    expect(a.balances).toHaveLength(1);
    expect(a.balances[0].amount).toBe(((units * 50n) / 10_000n + (units * 10n) / 10_000n).toString());
    expect(a.balances[0].currency).toMatchObject({ chainId: 31338, symbol: 'USDC' });
    expect((await balance(RECIPIENT_B.toLowerCase())).balances[0].amount).toBe(
      ((units * 30n) / 10_000n).toString(),
    );

    const stream = await store.readStream(`app-fee-account-${RECIPIENT_A}`);
    expect(stream.map((event) => event.id)).toEqual([`app-fee-accrued:${quote.requestId}:${RECIPIENT_A}`]);
  });

  it('credits nothing for a request whose fill failed (it never has a FillSucceeded)', async () => {
    const quote = {
      ...quoteWithFees(302),
      appFees: [
        {
          recipient: '0x00000000000000000000000000000000000000c3',
          bps: '50',
          amount: '5000',
          amountFormatted: '0.005',
        },
      ],
    };
    const [quoted, detect, confirm] = sampleLifecycle(quote, 302);
    const at = (seconds: number) => new Date(Date.parse(quote.quotedAt) + seconds * 1000).toISOString();
    await run(quote.requestId, [
      quoted,
      detect,
      confirm,
      {
        type: 'RecordFillFailure',
        data: {
          failReason: 'SOLVER_FAILED',
          failedTxHash: null,
          failedTxBlockNumber: null,
          failedCallData: null,
          details: null,
          failedAt: at(20),
        },
      },
    ]);
    await settled();
    const body = await balance('0x00000000000000000000000000000000000000c3');
    expect(body.balances[0].amount).toBe('0');
    expect(body.totals.accrued).toBe('0');
    expect(await store.readStream('app-fee-account-0x00000000000000000000000000000000000000c3')).toEqual([]);
  });

  it('answers a zero balance for an unknown address and 400 INVALID_ADDRESS for a malformed one', async () => {
    const unknown = await balance('0x000000000000000000000000000000000000dEaD');
    expect(unknown.balances[0]).toMatchObject({ amount: '0', amountFormatted: '0', amountUsd: '0' });
    for (const bad of ['0x123', 'not-an-address', '0x' + 'g'.repeat(40)]) {
      const response = await app.http.inject({ method: 'GET', url: `/app-fees/${bad}/balances` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ errorCode: 'INVALID_ADDRESS' });
    }
  });

  it('credits nothing twice when the consumer reads the log again from the start (a restart before its checkpoint)', async () => {
    const before = await balance(RECIPIENT_A);
    const events = (await store.readStream(`app-fee-account-${RECIPIENT_A}`)).length;
    await db.query(
      'UPDATE projection_checkpoints SET commit_position = 0, prepare_position = 0 WHERE name = $1',
      [ACCRUAL_CONSUMER],
    );
    const worker = app.app.get(AppFeesWorker);
    while (await worker.accrual.step()) {
      /* read the whole log again */
    }
    await settled();
    expect(await balance(RECIPIENT_A)).toEqual(before);
    expect((await store.readStream(`app-fee-account-${RECIPIENT_A}`)).length).toBe(events);
  });

  it('projections:audit reproduces every balance and claim from the log', async () => {
    for (const name of ['app-fee-balances', 'app-fee-claims']) {
      const result = await auditProjection(db, store, findProjection(name)!);
      expect(result.differences).toEqual([]);
    }
    const audit = await auditProjection(db, store, findProjection('app-fee-balances')!);
    expect(audit.rowsCompared).toBeGreaterThanOrEqual(2);
  });
});
