import { CommandBus } from '@nestjs/cqrs';
import { findProjection } from '../../../projections/index.js';
import { auditProjection } from '../../../projections/runner/audit.js';
import { ApiKeysService } from '../../../src/api-keys/api-keys.service.js';
import { ACCRUAL_CONSUMER } from '../../../src/app-fees/app-fee-accrual.js';
import { AppFeesWorker } from '../../../src/app-fees/app-fees.worker.js';
import type { RevenueShareAccruedData } from '../../../src/app-fees/domain/app-fee-account-events.js';
import { listApiKeysCommand } from '../../../src/cli/commands/api-keys-list.command.js';
import { captureOutput } from '../../../src/cli/output.js';
import { DATABASE, type Database } from '../../../src/database/database.js';
import { EVENT_STORE, type EventStore } from '../../../src/event-store/event-store.js';
import type { TransactionType } from '../../../src/quotes/domain/pricing/fee-schedule.js';
import { ExecuteRequestCommand } from '../../../src/requests/commands/execute-request.command.js';
import type { RequestQuotedData } from '../../../src/requests/domain/request-events.js';
import type { SponsorshipPhase } from '../../../src/requests/domain/records.js';
import { sampleLifecycle, sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { revenueShareViews } from '../../../src/revenue-share/revenue-share-view.js';
import { startTestApp, type TestApp, waitForProjections } from '../../support/app.js';
import { waitFor } from '../../support/chain-clients.js';

const ADMIN_TOKEN = 'a'.repeat(40);
const PAYOUT = {
  tier1: '0x00000000000000000000000000000000000005a1',
  tier2: '0x00000000000000000000000000000000000005a2',
  under: '0x00000000000000000000000000000000000005a3',
  exact: '0x00000000000000000000000000000000000005a4',
  noKyb: '0x00000000000000000000000000000000000005a5',
};

/**
 * Revenue share on PostgreSQL, from requests recorded through the Request aggregate (sample data, no chains): 10M USD
 * of trailing volume is seeded as one large successful request per key, then a later major swap or bridge of the key
 * earns the tier's share of its platform fee, or nothing.
 */
describe('revenue share', () => {
  let app: TestApp;
  let db: Database;
  let store: EventStore;
  let apiKeys: ApiKeysService;
  let n = 700;

  /** A successful request of `apiKeyId` worth `volumeUsd`, priced as `transactionType` with `platformUsd`. */
  const succeed = async (
    apiKeyId: string,
    options: {
      volumeUsd: string;
      transactionType: TransactionType;
      platformUsd: string;
      feeSponsorship?: SponsorshipPhase;
    },
  ): Promise<RequestQuotedData> => {
    n += 1;
    const sample = sampleQuote(n, { apiKeyId, appFeeBps: 0 });
    const quote: RequestQuotedData = {
      ...sample,
      ...(options.feeSponsorship
        ? { feeSponsorship: options.feeSponsorship, sponsorshipCurrency: sample.currencyIn.currency }
        : {}),
      transactionType: options.transactionType,
      currencyIn: { ...sample.currencyIn, amountUsd: options.volumeUsd },
      fees: {
        ...sample.fees,
        platform: { usd: options.platformUsd, amount: '0', amountFormatted: '0' },
      },
    };
    for (const command of sampleLifecycle(quote, n)) {
      await app.app.get(CommandBus).execute(new ExecuteRequestCommand(quote.requestId, command));
    }
    return quote;
  };
  const settled = async () => {
    await waitForProjections(app);
    const head = await store.headPosition();
    await waitFor(
      async () => {
        const { rows } = await db.query<{ prepare_position: string }>(
          'SELECT prepare_position::text FROM projection_checkpoints WHERE name = $1',
          [ACCRUAL_CONSUMER],
        );
        return rows[0] !== undefined && BigInt(rows[0].prepare_position) >= head.prepare;
      },
      'the accrual consumer',
      20_000,
    );
    await waitForProjections(app);
  };
  const sharesOf = async (address: string) =>
    (await store.readStream(`app-fee-account-${address}`))
      .filter((event) => event.type === 'RevenueShareAccrued')
      .map((event) => ({ id: event.id, ...(event.data as RevenueShareAccruedData) }));
  const available = async (address: string) => {
    const response = await app.http.inject({ method: 'GET', url: `/app-fees/${address}/balances` });
    return (response.json() as { balances: { amount: string }[] }).balances[0].amount;
  };
  const admin = (method: 'GET' | 'PUT', url: string, payload?: unknown) =>
    app.http.inject({ method, url, headers: { 'x-admin-token': ADMIN_TOKEN }, payload: payload as object });
  const key = async (label: string, payoutAddress: string | null, kybVerified: boolean) => {
    const created = await apiKeys.create({ label });
    if (payoutAddress !== null || kybVerified) {
      const response = await admin('PUT', `/admin/api-keys/${created.id}/revenue-share`, {
        kybVerified,
        ...(payoutAddress === null ? {} : { payoutAddress }),
      });
      expect(response.statusCode).toBe(200);
    }
    return created.id;
  };

  let tier1: string;
  let tier2: string;
  let under: string;
  let exact: string;
  let noKyb: string;
  let noAddress: string;
  const swaps: Record<string, RequestQuotedData> = {};
  let bridge: RequestQuotedData;

  beforeAll(async () => {
    app = await startTestApp({ ADMIN_API_TOKEN: ADMIN_TOKEN });
    db = app.app.get(DATABASE);
    store = app.app.get(EVENT_STORE);
    apiKeys = app.app.get(ApiKeysService);
    tier1 = await key('tier 1', PAYOUT.tier1, true);
    tier2 = await key('tier 2', PAYOUT.tier2, true);
    under = await key('under', PAYOUT.under, true);
    exact = await key('exactly 10M', PAYOUT.exact, true);
    noKyb = await key('no KYB', PAYOUT.noKyb, false);
    noAddress = await key('no address', null, true);

    // The trailing volume: one large earlier request per key (a bridge: it shares nothing itself).
    const seed = { transactionType: 'token-bridge' as const, platformUsd: '0' };
    await succeed(tier1, { ...seed, volumeUsd: '10000000.01' });
    await succeed(tier2, { ...seed, volumeUsd: '100000000.5' });
    await succeed(under, { ...seed, volumeUsd: '9999999.99' });
    await succeed(exact, { ...seed, volumeUsd: '10000000' });
    await succeed(noKyb, { ...seed, volumeUsd: '50000000' });
    await succeed(noAddress, { ...seed, volumeUsd: '50000000' });

    // Then each key's major swap: 0.06% platform fee of 10,205.76 USD = 6.123457 USD (to the cent of a cent).
    const major = { transactionType: 'major-swap' as const, volumeUsd: '10205.76', platformUsd: '6.123457' };
    for (const [name, id] of Object.entries({ tier1, tier2, under, exact, noKyb, noAddress })) {
      swaps[name] = await succeed(id, major);
    }
    // A bridge of the tier-1 key: bridges share 0% (given a platform fee here, to show the share, not the fee, is 0).
    bridge = await succeed(tier1, { transactionType: 'token-bridge', volumeUsd: '500', platformUsd: '1' });
    await settled();
    await waitFor(async () => (await sharesOf(PAYOUT.tier2)).length > 0, 'the tier-2 share', 20_000);
    await settled();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('a key over 10M USD earns exactly 25% of a major swap’s platform fee, and nothing on a bridge', async () => {
    const shares = await sharesOf(PAYOUT.tier1);
    expect(shares).toEqual([
      expect.objectContaining({
        id: `revenue-share:${swaps.tier1.requestId}`,
        requestId: swaps.tier1.requestId,
        apiKeyId: tier1,
        transactionType: 'major-swap',
        tier: '10M-100M',
        share: '0.25',
        platformFeeUsd: '6.123457',
        amountUsd: '1.530864', // 6.123457 × 0.25 = 1.53086425, credited rounded down in USDC units
        usdcPrice: '1',
        amount: '1530864',
      }),
    ]);
    expect(Number(shares[0].trailingVolumeUsd)).toBeGreaterThan(10_000_000);
    expect(shares.some((share) => share.requestId === bridge.requestId)).toBe(false);
    expect(await available(PAYOUT.tier1)).toBe('1530864');
  });

  it('a key over 100M USD earns the second tier: 50% of a major swap’s platform fee', async () => {
    const [share] = await sharesOf(PAYOUT.tier2);
    expect(share).toMatchObject({ tier: '100M-1B', share: '0.5', amount: '3061728' }); // 3.0617285 rounded down
    expect(await available(PAYOUT.tier2)).toBe('3061728');
  });

  it('under 10M, exactly 10M, without KYB or without a payout address: nothing', async () => {
    for (const address of [PAYOUT.under, PAYOUT.exact, PAYOUT.noKyb]) {
      expect(await sharesOf(address)).toEqual([]);
      expect(await available(address)).toBe('0');
    }
    const { rows } = await db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM events WHERE event_type = 'RevenueShareAccrued'",
    );
    expect(rows[0].n).toBe('2');
  });

  it('never changes what the end user pays: the records keep the quoted platform fee', async () => {
    const stream = await store.readStream(`request-${swaps.tier1.requestId}`);
    const fill = stream.find((event) => event.type === 'FillSucceeded')!.data as {
      fees: { platform: { usd: string } };
    };
    expect(fill.fees.platform.usd).toBe('6.123457');
  });

  it('credits nothing twice when the accrual consumer reads the whole log again', async () => {
    await db.query(
      'UPDATE projection_checkpoints SET commit_position = 0, prepare_position = 0 WHERE name = $1',
      [ACCRUAL_CONSUMER],
    );
    const worker = app.app.get(AppFeesWorker);
    while (await worker.accrual.step()) {
      /* the whole log again */
    }
    await settled();
    expect(await sharesOf(PAYOUT.tier1)).toHaveLength(1);
    expect(await sharesOf(PAYOUT.tier2)).toHaveLength(1);
    expect(await available(PAYOUT.tier1)).toBe('1530864');
  });

  it('a payout address changed before a replay: the request is not credited to the new address too', async () => {
    const moved = '0x00000000000000000000000000000000000005b1';
    await apiKeys.setRevenueShare(tier1, { payoutAddress: moved });
    await db.query(
      'UPDATE projection_checkpoints SET commit_position = 0, prepare_position = 0 WHERE name = $1',
      [ACCRUAL_CONSUMER],
    );
    const worker = app.app.get(AppFeesWorker);
    while (await worker.accrual.step()) {
      /* the whole log again */
    }
    await settled();
    expect(await sharesOf(moved)).toEqual([]);
    // Each share's address was decided once, in the log: a replay credits that address, never the key's current one
    // (this holds on EventStoreDB too, whose event ids are unique per stream only).
    const decided = await db.query<{ address: string }>(
      `SELECT data->>'address' AS address FROM events WHERE event_type = 'RevenueShareDecided'`,
    );
    expect(decided.rows.length).toBeGreaterThan(0);
    expect(decided.rows.map((row) => row.address.toLowerCase())).not.toContain(moved);
    await apiKeys.setRevenueShare(tier1, { payoutAddress: PAYOUT.tier1 });
  });

  it('projections:audit reproduces the balances, the claims and the key volumes from the log', async () => {
    for (const name of ['app-fee-balances', 'app-fee-claims', 'api-key-volume']) {
      const result = await auditProjection(db, store, findProjection(name)!);
      expect(result.differences).toEqual([]);
    }
  });

  it('reads every listed key’s volume in one statement, each key the volume it has alone', async () => {
    const at = new Date(Date.UTC(2026, 10, 2));
    const keys = await apiKeys.list();
    let statements = 0;
    const counting: Pick<typeof db, 'query'> = {
      query: ((...args: Parameters<typeof db.query>) => {
        statements += 1;
        return db.query(...args);
      }) as typeof db.query,
    };
    const listed = await revenueShareViews(counting, keys, at);
    expect(statements).toBe(1);
    expect(new Set(listed.map((view) => view.trailingVolumeUsd)).size).toBeGreaterThan(2);
    for (const key of keys) {
      const [alone] = await revenueShareViews(db, [key], at);
      expect(listed.find((view) => view.apiKeyId === key.id)).toEqual(alone);
    }
  });

  it('shows each key’s revenue share in api-keys:list and the admin API', async () => {
    const views = await revenueShareViews(db, await apiKeys.list(), new Date(Date.UTC(2026, 10, 2)));
    expect(views.find((view) => view.apiKeyId === tier1)).toMatchObject({
      kybVerified: true,
      payoutAddress: PAYOUT.tier1,
      trailingVolumeUsd: '10010705.77', // 10,000,000.01 + 10,205.76 + 500
      tier: '10M-100M',
      earning: true,
    });
    const output = captureOutput();
    await listApiKeysCommand(
      {
        apiKeys,
        defaultRateLimitPerMinute: 600,
        revenueShare: (keys) => revenueShareViews(db, keys, new Date(Date.UTC(2026, 10, 2))),
      },
      output,
    );
    const lines = output.stdout;
    expect(lines[0]).toContain('SHARE TIER');
    const row = lines.find((line) => line.includes(tier1))!;
    expect(row).toContain(PAYOUT.tier1);
    expect(row).toContain('10010705.77');
    expect(row).toContain('10M-100M');
    expect(lines.find((line) => line.includes(noAddress))).toMatch(/\byes\s+-\s+/);

    const got = await admin('GET', `/admin/api-keys/${tier2}/revenue-share`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ apiKeyId: tier2, kybVerified: true, payoutAddress: PAYOUT.tier2 });
    const listed = await admin('GET', '/admin/api-keys/revenue-share');
    expect((listed.json() as { apiKeys: unknown[] }).apiKeys).toHaveLength(6);
    const bad = await admin('PUT', `/admin/api-keys/${tier2}/revenue-share`, { payoutAddress: '0x12' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ errorCode: 'INVALID_INPUT' });
    const unauthenticated = await app.http.inject({ method: 'GET', url: '/admin/api-keys/revenue-share' });
    expect(unauthenticated.statusCode).toBe(401);
  });

  it("attack: the platform fee the key sponsored (from Ferry's cap or its own balance) earns no share", async () => {
    // Sponsorship pays the platform fee instead of the user: without a sponsor address Ferry's own cap does, so Ferry
    // never receives it; with one, the integrator would discount its users with its share (the spec forbids it).
    const sponsoring = (sponsored: string, userPays: string): SponsorshipPhase => {
      const none = { selected: false, total: '0', sponsored: '0', userPays: '0' };
      const usdc = sampleQuote(1).currencyIn;
      const amount = (units: string) => ({
        ...usdc,
        amount: units,
        amountFormatted: units,
        amountUsd: units,
      });
      return {
        selectedComponents: ['platform'],
        capHit: false,
        components: {
          execution: none,
          swap: none,
          app: none,
          rent: none,
          platform: { selected: true, total: '6123457', sponsored, userPays },
        },
        sponsoredTotal: amount(sponsored),
        userPaysTotal: amount(userPays),
        maxSubsidizationAmount: '100000000',
      };
    };
    const major = { transactionType: 'major-swap' as const, volumeUsd: '10205.76', platformUsd: '6.123457' };
    const whole = await succeed(tier2, { ...major, feeSponsorship: sponsoring('6123457', '0') });
    const half = await succeed(tier2, { ...major, feeSponsorship: sponsoring('3061728', '3061729') });
    await settled();
    await waitFor(
      async () => (await sharesOf(PAYOUT.tier2)).some((share) => share.requestId === half.requestId),
      'the half-sponsored share',
      20_000,
    );
    const shares = await sharesOf(PAYOUT.tier2);
    expect(shares.some((share) => share.requestId === whole.requestId)).toBe(false);
    // 50% of the 3.061729 USD of platform fee the user paid: 1.5308645, credited rounded down.
    expect(shares.find((share) => share.requestId === half.requestId)).toMatchObject({
      platformFeeUsd: '3.061729',
      amount: '1530864',
    });
  });
});
