import { CommandBus } from '@nestjs/cqrs';
import { PerpsAActivation, activationFeeUsd } from '../../../src/quotes/perps-a-activation.js';
import { ExecuteRequestCommand } from '../../../src/requests/commands/execute-request.command.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';

/** The 1 USD activation fee of perps exchange A is for an account's first deposit: read from the request history. */
describe(PerpsAActivation.name, () => {
  let app: TestApp;
  let sut: PerpsAActivation;

  const run = async (n: number, through: number) => {
    const quote = sampleQuote(n, { destinationChainId: 1337 });
    for (const command of sampleLifecycle(quote, n).slice(0, through)) {
      await app.app
        .get(CommandBus)
        .execute(new ExecuteRequestCommand(quote.requestId, command, { actor: 'test' }));
    }
    await waitForProjections(app);
    return quote.recipient;
  };

  beforeAll(async () => {
    app = await startTestApp();
    sut = app.app.get(PerpsAActivation);
  });
  afterAll(() => app?.close());

  it('charges an account with no successful deposit through Ferry (none, or one still pending)', async () => {
    const pending = await run(41, 3);
    expect(await sut.isActivated(1337, pending)).toBe(false);
    expect(activationFeeUsd(false)).toBe('1');
  });

  it('does not charge an account once a deposit to it succeeded, on exchange A only', async () => {
    const filled = await run(42, 5);
    expect(await sut.isActivated(1337, filled)).toBe(true);
    expect(await sut.isActivated(1337, filled.toUpperCase().replace('0X', '0x'))).toBe(true);
    expect(await sut.isActivated(31338, filled)).toBe(false);
    expect(activationFeeUsd(true)).toBeNull();
  });
});
