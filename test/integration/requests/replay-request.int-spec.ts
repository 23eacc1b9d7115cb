import { captureOutput } from '../../../src/cli/output.js';
import { replayRequest } from '../../../src/cli/commands/replay-request.command.js';
import { AggregateRepository } from '../../../src/event-store/aggregate-repository.js';
import { EventRegistry } from '../../../src/event-store/event-registry.js';
import { PostgresEventStore } from '../../../src/event-store/postgres/postgres-event-store.js';
import { RequestAggregate } from '../../../src/requests/domain/request.aggregate.js';
import { REQUEST_EVENTS } from '../../../src/requests/domain/request-events.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { migratedDatabase, type MigratedDatabase } from '../../support/postgres.js';

describe(replayRequest.name, () => {
  let database: MigratedDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    database = await migratedDatabase('postgres');
    store = new PostgresEventStore(database.db);
    const repository = new AggregateRepository(store, new EventRegistry().register(...REQUEST_EVENTS));
    const quote = sampleQuote(42);
    for (const command of sampleLifecycle(quote, 42)) {
      await repository.execute(
        () => new RequestAggregate(quote.requestId),
        (request) => request.handle(command),
      );
    }
  });
  afterAll(async () => {
    await database.close();
  });

  it('prints every event with the status it leads to, then the v3 record', async () => {
    const output = captureOutput(false);
    const code = await replayRequest({ store }, sampleQuote(42).requestId, output);
    expect(code).toBe(0);
    const text = output.stdout.join('\n');
    expect(text.match(/^#\d+ \w+/gm)).toEqual([
      '#0 RequestQuoted',
      '#1 DepositDetected',
      '#2 DepositConfirmed',
      '#3 FillSubmitted',
      '#4 FillSucceeded',
    ]);
    expect(text.match(/^ {2}status: \w+/gm)).toEqual([
      '  status: waiting',
      '  status: waiting',
      '  status: pending',
      '  status: submitted',
      '  status: success',
    ]);
    const record = JSON.parse(text.slice(text.indexOf('\n{', text.indexOf('v3 record')) + 1));
    expect(record).toMatchObject({ id: sampleQuote(42).requestId, status: 'success' });
    expect(record.data.outTxs).toHaveLength(1);
  });

  it('exits 1 for an unknown or malformed request id', async () => {
    const unknown = captureOutput(false);
    expect(await replayRequest({ store }, `0x${'0'.repeat(64)}`, unknown)).toBe(1);
    expect(unknown.stderr.join('\n')).toContain('not found');
    const malformed = captureOutput(false);
    expect(await replayRequest({ store }, 'nope', malformed)).toBe(1);
  });
});
