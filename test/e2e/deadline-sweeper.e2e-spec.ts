import { CommandBus } from '@nestjs/cqrs';
import { ManualClock } from '../../src/common/clock.js';
import { EVENT_STORE, type EventStore } from '../../src/event-store/event-store.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import type { RequestCommand } from '../../src/requests/domain/request-decide.js';
import { requestStreamId } from '../../src/requests/domain/request.aggregate.js';
import { sampleLifecycle, sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { DeadlineSweeper } from '../../src/requests/sweeper/deadline-sweeper.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';

const T0 = new Date('2026-11-01T00:00:00.000Z');

describe(DeadlineSweeper.name, () => {
  let app: TestApp;
  let clock: ManualClock;
  let sut: DeadlineSweeper;

  const run = (requestId: string, command: RequestCommand) =>
    app.app.get(CommandBus).execute(new ExecuteRequestCommand(requestId, command));
  const events = async (requestId: string) =>
    (await app.app.get<EventStore>(EVENT_STORE).readStream(requestStreamId(requestId))).map((e) => [
      e.type,
      e.data,
    ]);
  const sweep = async () => {
    await waitForProjections(app);
    return sut.sweep();
  };

  beforeAll(async () => {
    clock = new ManualClock(T0);
    app = await startTestApp({}, [], clock);
    sut = app.app.get(DeadlineSweeper);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('expires a quote never deposited silently, fails funds in flight at the fill deadline, and only when due', async () => {
    const quoteOnly = sampleQuote(101, { quotedAt: T0.toISOString() });
    await run(quoteOnly.requestId, { type: 'RecordQuote', data: quoteOnly });
    const inFlight = sampleQuote(102, { quotedAt: T0.toISOString() });
    const [quoted, detect, confirm] = sampleLifecycle(inFlight, 102);
    for (const command of [quoted, detect, confirm]) await run(inFlight.requestId, command);
    const seenNotFinal = sampleQuote(103, { quotedAt: T0.toISOString() });
    const [quoted3, detect3] = sampleLifecycle(seenNotFinal, 103);
    for (const command of [quoted3, detect3]) await run(seenNotFinal.requestId, command);

    expect(await sweep()).toEqual({ due: 0, expired: 0 });

    clock.set('2026-11-01T00:10:00.000Z');
    expect(await sweep()).toEqual({ due: 1, expired: 1 });
    expect((await events(quoteOnly.requestId)).at(-1)).toEqual([
      'RequestExpired',
      { reason: 'QUOTE_EXPIRED', expiredAt: '2026-11-01T00:10:00.000Z' },
    ]);

    clock.set('2026-11-01T00:10:05.000Z');
    expect(await sweep()).toEqual({ due: 1, expired: 1 });
    expect((await events(seenNotFinal.requestId)).at(-1)?.[1]).toMatchObject({
      reason: 'DEPOSIT_CONFIRMATION_TIMEOUT',
    });

    clock.set('2026-11-01T00:59:59.000Z');
    expect(await sweep()).toEqual({ due: 0, expired: 0 });
    clock.set('2026-11-01T01:00:00.000Z');
    expect(await sweep()).toEqual({ due: 1, expired: 1 });
    expect((await events(inFlight.requestId)).at(-1)).toEqual([
      'RequestExpired',
      { reason: 'FILL_DEADLINE_EXPIRED', expiredAt: '2026-11-01T01:00:00.000Z' },
    ]);

    clock.set('2026-11-02T00:00:00.000Z');
    expect(await sweep()).toEqual({ due: 0, expired: 0 });
  });

  it('records an expiry once when two sweeps race', async () => {
    const quote = sampleQuote(104, { quotedAt: '2026-11-02T00:00:00.000Z' });
    await run(quote.requestId, { type: 'RecordQuote', data: quote });
    clock.set('2026-11-02T01:00:00.000Z');
    await waitForProjections(app);
    const results = await Promise.all([sut.sweep(), sut.sweep()]);
    expect(results.reduce((sum, r) => sum + r.expired, 0)).toBe(1);
    expect((await events(quote.requestId)).filter(([type]) => type === 'RequestExpired')).toHaveLength(1);
  });
});
