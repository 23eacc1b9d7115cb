import { CommandBus } from '@nestjs/cqrs';
import { randomBytes } from 'node:crypto';
import type { RequestRecordState, RequestV3 } from '../../projections/requests/request-record-state.js';
import { ApiKeysService, type CreatedApiKey } from '../../src/api-keys/api-keys.service.js';
import { DATABASE, type Database } from '../../src/database/database.js';
import { ExecuteRequestCommand } from '../../src/requests/commands/execute-request.command.js';
import type { RequestCommand } from '../../src/requests/domain/request-decide.js';
import type { RequestQuotedData } from '../../src/requests/domain/request-events.js';
import { sampleLifecycle, sampleQuote } from '../../src/requests/domain/sample-requests.js';
import { startTestApp, type TestApp, waitForProjections } from '../support/app.js';
import { recordAfter } from '../support/request-events.js';

type Outcome =
  | 'success'
  | 'submitted'
  | 'pending'
  | 'waiting'
  | 'depositing'
  | 'failure'
  | 'refund'
  | 'refundFailed'
  | 'quoteOnly';

/** The status each outcome leaves the request in (spec: States and transitions). */
const STATUS: Record<Outcome, string> = {
  success: 'success',
  submitted: 'submitted',
  pending: 'pending',
  waiting: 'waiting',
  depositing: 'depositing',
  failure: 'failure',
  refund: 'refund',
  refundFailed: 'failure',
  quoteOnly: 'waiting',
};
const CYCLE: Outcome[] = ['success', 'success', 'pending', 'failure', 'refund', 'submitted', 'depositing'];

const SVM_CHAIN = 792703809;
const SVM_RECIPIENT = 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy';
const REFERRER = { a: 'wallet-a.example', b: 'wallet-b.example' } as const;

const later = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();
const hash = (n: number, kind: number) =>
  `0x${kind.toString(16).padStart(2, '0')}${n.toString(16).padStart(62, '0')}`;

interface Sample {
  readonly n: number;
  readonly id: string;
  readonly quote: RequestQuotedData;
  readonly outcome: Outcome;
  readonly commands: RequestCommand[];
  /** The record as the shared fold makes it from the same commands: what the API must answer. */
  readonly expected: RequestRecordState;
}

function commandsFor(quote: RequestQuotedData, n: number, outcome: Outcome): RequestCommand[] {
  const lifecycle = sampleLifecycle(quote, n);
  const at = (seconds: number) => later(quote.quotedAt, seconds);
  const failed: RequestCommand[] = [
    ...lifecycle.slice(0, 4),
    {
      type: 'RecordFillFailure',
      data: {
        failReason: n % 2 === 0 ? 'FILL_REVERTED' : 'SOLVER_CAPACITY_EXCEEDED',
        failedTxHash: hash(n, 2),
        failedTxBlockNumber: 2000 + n,
        failedCallData: null,
        details: null,
        failedAt: at(20),
      },
    },
  ];
  const refund = {
    chainId: quote.originChainId,
    txHash: hash(n, 3),
    amount: quote.currencyIn.amount,
    currency: quote.currencyIn.currency.address,
    recipient: quote.user,
  };
  // Refunds land hours later, so that the updatedAt order differs from the createdAt order.
  const refundedAt = at((50 - (n % 50)) * 3600);
  const refunding: RequestCommand[] = [
    ...failed,
    { type: 'SubmitRefund', data: { ...refund, reason: null, submittedAt: at(30) } },
  ];
  switch (outcome) {
    case 'success': {
      const [quoted, detect, confirm, submit, fill] = lifecycle;
      if (fill.type !== 'RecordFillSuccess') throw new Error('unexpected lifecycle');
      // Fill time (deposit seen at +5 s → fill landed) = 10 + n seconds.
      return [quoted, detect, confirm, submit, { ...fill, data: { ...fill.data, completedAt: at(15 + n) } }];
    }
    case 'submitted':
      return lifecycle.slice(0, 4);
    case 'pending':
      return lifecycle.slice(0, 3);
    case 'waiting':
      return lifecycle.slice(0, 2);
    case 'depositing':
      return [
        lifecycle[0],
        {
          type: 'SubmitDeposit',
          data: { via: 'permit', chainId: quote.originChainId, txHash: hash(n, 5), submittedAt: at(6) },
        },
      ];
    case 'failure':
      return failed;
    case 'refund':
      return [
        ...refunding,
        {
          type: 'RecordRefundSuccess',
          data: {
            ...refund,
            block: 3000 + n,
            timestamp: Date.parse(refundedAt) / 1000,
            fee: '1',
            refundedAt,
          },
        },
      ];
    case 'refundFailed':
      return [
        ...refunding,
        {
          type: 'RecordRefundFailure',
          data: { refundFailReason: 'REFUND_REVERTED', failedTxHash: hash(n, 3), failedAt: refundedAt },
        },
      ];
    case 'quoteOnly':
      return lifecycle.slice(0, 1);
  }
}

const fold = (commands: RequestCommand[]) => recordAfter(commands);

/**
 * ~35 requests: three chains each way (same-chain swaps where they meet), USDC or ETH out, app fees of 0, 25 or 100
 * bps, deposit addresses, two API keys and none, every status, two never deposited, one to an SVM recipient, and two
 * created in the same millisecond.
 */
function buildSamples(keyA: string, keyB: string): Sample[] {
  const specs: { n: number; outcome: Outcome; tweak?: (q: RequestQuotedData) => RequestQuotedData }[] = [
    ...Array.from({ length: 28 }, (_, i) => ({ n: i + 1, outcome: CYCLE[(i + 1) % CYCLE.length] })),
    { n: 29, outcome: 'waiting' },
    { n: 30, outcome: 'refundFailed' },
    { n: 31, outcome: 'quoteOnly' },
    { n: 32, outcome: 'quoteOnly' },
    {
      n: 33,
      outcome: 'success',
      tweak: (q) => ({ ...q, recipient: SVM_RECIPIENT }),
    },
    { n: 34, outcome: 'success', tweak: (q) => quotedLater(q, '2026-11-01T12:00:00.000Z') },
    { n: 35, outcome: 'pending', tweak: (q) => quotedLater(q, '2026-11-01T12:00:00.000Z') },
  ];
  return specs.map(({ n, outcome, tweak }) => {
    const apiKeyId = [keyA, keyB, null][n % 3];
    const base = sampleQuote(n, {
      apiKeyId,
      // One of key A's requests has no referrer: with includeAuthenticatedData it answers `referrer: null`.
      referrer:
        apiKeyId === keyA ? (n === 3 ? null : REFERRER.a) : apiKeyId === keyB ? REFERRER.b : 'nobody.example',
      originChainId: [31337, 31338, 8453][n % 3],
      destinationChainId: n === 33 ? SVM_CHAIN : [31338, 31337, 10, 8453, 8453][n % 5],
      symbolOut: n % 7 === 0 ? 'ETH' : 'USDC',
      withDepositAddress: n % 6 === 0,
      appFeeBps: n % 4 === 0 ? 100 : n % 4 === 1 ? 25 : 0,
    });
    const withFeatures = base.depositAddress
      ? { ...base, features: [...base.features, 'deposit_address'] }
      : base;
    const quote = tweak ? tweak(withFeatures) : withFeatures;
    const commands = commandsFor(quote, n, outcome);
    return { n, id: quote.requestId, quote, outcome, commands, expected: fold(commands) };
  });
}

/** The same quote issued at `quotedAt`, its deadlines moved with it. */
function quotedLater(quote: RequestQuotedData, quotedAt: string): RequestQuotedData {
  const shift = Date.parse(quotedAt) - Date.parse(quote.quotedAt);
  const moved = (iso: string) => new Date(Date.parse(iso) + shift).toISOString();
  return {
    ...quote,
    quotedAt,
    quoteExpiresAt: moved(quote.quoteExpiresAt),
    fillDeadline: moved(quote.fillDeadline),
  };
}

describe('GET /requests/v3', () => {
  let sut: TestApp;
  let keyA: CreatedApiKey;
  let keyB: CreatedApiKey;
  let samples: Sample[];
  let listed: Sample[];

  beforeAll(async () => {
    sut = await startTestApp({
      API_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      API_KEY_RATE_LIMIT_PER_MINUTE: '100000',
    });
    const apiKeys = sut.app.get(ApiKeysService);
    keyA = await apiKeys.create({ label: 'Wallet A' });
    keyB = await apiKeys.create({ label: 'Wallet B' });
    samples = buildSamples(keyA.id, keyB.id);
    listed = samples.filter((sample) => sample.outcome !== 'quoteOnly');
    const bus = sut.app.get(CommandBus);
    await Promise.all(
      samples.map(async ({ id, commands }) => {
        for (const command of commands) await bus.execute(new ExecuteRequestCommand(id, command));
      }),
    );
    await waitForProjections(sut);
  });
  afterAll(async () => {
    await sut?.close();
  });

  const get = async (query: Record<string, string | string[]> = {}, key: string | null = keyA.key) => {
    const response = await sut.http.inject({
      method: 'GET',
      url: '/requests/v3',
      query,
      headers: key === null ? {} : { 'x-api-key': key },
    });
    return { status: response.statusCode, body: JSON.parse(response.body), raw: response.body };
  };
  /** The ids of one page (at most 50), asserting a 200. */
  const ids = async (query: Record<string, string | string[]>, key?: string) => {
    const { status, body } = await get({ limit: '50', ...query }, key);
    expect({ status, body: status === 200 ? 'ok' : body }).toEqual({ status: 200, body: 'ok' });
    return (body.requests as RequestV3[]).map((record) => record.id);
  };
  const sorted = (matches: Sample[], sortBy = 'createdAt', direction?: 'asc' | 'desc') => {
    const dir = direction ?? (sortBy === 'amountUsd' ? 'asc' : 'desc');
    const key = (s: Sample): string | number =>
      sortBy === 'amountUsd'
        ? Number(s.quote.currencyIn.amountUsd)
        : sortBy === 'updatedAt'
          ? s.expected.v3.updatedAt
          : s.quote.quotedAt;
    return [...matches]
      .sort((x, y) => {
        const [a, b] = [key(x), key(y)];
        const byKey = a < b ? -1 : a > b ? 1 : 0;
        return (byKey || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)) * (dir === 'asc' ? 1 : -1);
      })
      .map((s) => s.id);
  };
  const where = (predicate: (sample: Sample) => boolean) => sorted(listed.filter(predicate));
  const expectBadRequest = async (query: Record<string, string | string[]>, field?: string) => {
    const { status, body } = await get(query);
    expect(status).toBe(400);
    expect(body).toMatchObject({ errorCode: 'INVALID_INPUT', message: expect.any(String) });
    expect(Array.isArray(body.errorData)).toBe(true);
    if (field) expect(body.errorData.map((p: { field: string }) => p.field)).toContain(field);
  };
  const sample = (n: number) => samples.find((s) => s.n === n)!;

  describe('authentication', () => {
    it('answers 401 {message, errorCode} without x-api-key or with a wrong one', async () => {
      for (const key of [null, '', 'nonsense', `fk_${randomBytes(32).toString('base64url')}`]) {
        const { status, body } = await get({}, key);
        expect(status).toBe(401);
        expect(body).toEqual({ message: expect.any(String), errorCode: 'UNAUTHORIZED', statusCode: 401 });
      }
    });
  });

  describe('listing', () => {
    it('lists every request with a deposit seen, newest first, 20 per page by default', async () => {
      const { status, body } = await get();
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(['continuation', 'requests']);
      expect(body.requests.map((r: RequestV3) => r.id)).toEqual(sorted(listed).slice(0, 20));
      expect(typeof body.continuation).toBe('string');
      expect(await ids({})).toEqual(sorted(listed));
    });

    it('never lists a quote that was never deposited, whatever it is searched by', async () => {
      const never = samples.filter((s) => s.outcome === 'quoteOnly');
      expect(never).toHaveLength(2);
      const all = await ids({});
      for (const { id, quote } of never) {
        expect(all).not.toContain(id);
        expect(await ids({ id })).toEqual([]);
        expect(await ids({ term: id })).toEqual([]);
        expect(await ids({ user: quote.user })).toEqual([]);
      }
    });

    it('answers records equal to the fold of their events, shaped as the spec says', async () => {
      const { body } = await get({ limit: '50' });
      for (const record of body.requests as RequestV3[]) {
        const expected = listed.find((s) => s.id === record.id)!.expected.v3;
        expect(record).toEqual(JSON.parse(JSON.stringify(expected)));
        expect(Object.keys(record).sort()).toEqual(
          [
            'id',
            'status',
            'user',
            'sender',
            'recipient',
            'refundTo',
            'depositAddress',
            'requestType',
            'supersededByRequestId',
            'features',
            'protocol',
            'createdAt',
            'updatedAt',
            'data',
          ].sort(),
        );
        expect(Object.keys(record.data).sort()).toEqual(
          [
            'slippageTolerance',
            'failReason',
            'refundFailReason',
            'failedTxHash',
            'failedTxBlockNumber',
            'failedCallData',
            'usesExternalLiquidity',
            'timeEstimate',
            'triggeredByFastFill',
            'inTxs',
            'outTxs',
            'appFees',
            'fees',
            'feeSponsorship',
            'route',
            'platformFee',
            'quoteOraclePrice',
            'refundCurrencyData',
            'externalMetadata',
          ].sort(),
        );
      }
      // null, never the v2 text N/A.
      expect(JSON.stringify(body)).not.toContain('N/A');
    });

    it('reports null reasons on success and the recorded ones on failure', async () => {
      const [success] = await get({ id: sample(1).id }).then((r) => r.body.requests as RequestV3[]);
      expect(success.data).toMatchObject({ failReason: null, refundFailReason: null, failedTxHash: null });
      const [failed] = await get({ id: sample(30).id }).then((r) => r.body.requests as RequestV3[]);
      expect(failed.status).toBe('failure');
      expect(failed.data).toMatchObject({
        failReason: 'FILL_REVERTED',
        refundFailReason: 'REFUND_REVERTED',
        failedTxHash: hash(30, 2),
        failedTxBlockNumber: 2030,
      });
    });

    it('falls back to the quoted route before execution, and derives the amounts after it', async () => {
      const waiting = sample(29);
      const [record] = (await get({ id: waiting.id })).body.requests as RequestV3[];
      expect(record.status).toBe('waiting');
      expect(record.data.route.actual).toEqual({ ...record.data.route.quoted, rate: waiting.quote.rate });
      expect(record.data.fees.actual).toBeNull();

      const crossChain = sample(1);
      const [filled] = (await get({ id: crossChain.id })).body.requests as RequestV3[];
      expect(filled.data.route.actual.origin.inputCurrency.amount).toBe(crossChain.quote.currencyIn.amount);
      expect(filled.data.route.actual.destination!.inputCurrency).toEqual(
        crossChain.quote.route.destination!.inputCurrency,
      );
      expect(filled.data.route.actual.destination!.outputCurrency).toEqual(crossChain.quote.currencyOut);

      const sameChain = listed.find(
        (s) => s.outcome === 'success' && s.quote.originChainId === s.quote.destinationChainId,
      )!;
      const [swap] = (await get({ id: sameChain.id })).body.requests as RequestV3[];
      expect(swap.requestType).toBe('Same-chain Swap');
      expect(swap.data.route.actual.destination).toBeNull();
      expect(swap.data.route.actual.origin.outputCurrency).toEqual(sameChain.quote.currencyOut);
    });
  });

  describe('filters', () => {
    const a = () => sample(12);
    const withHashes = (outcome: Outcome) => listed.find((s) => s.outcome === outcome)!;

    it.each<[string, () => Record<string, string | string[]>, (s: Sample) => boolean]>([
      ['id (upper-cased hex)', () => ({ id: a().id.toUpperCase().replace('0X', '0x') }), (s) => s.n === 12],
      ['orderId', () => ({ orderId: a().quote.protocol.orderId }), (s) => s.n === 12],
      ['depositTxHash', () => ({ depositTxHash: hash(12, 1) }), (s) => s.n === 12],
      [
        'fillTxHash',
        () => ({ fillTxHash: hash(withHashes('success').n, 2) }),
        (s) => s === withHashes('success'),
      ],
      [
        'refundTxHash',
        () => ({ refundTxHash: hash(withHashes('refund').n, 3) }),
        (s) => s === withHashes('refund'),
      ],
      ['originChainId', () => ({ originChainId: '8453' }), (s) => s.quote.originChainId === 8453],
      ['destinationChainId', () => ({ destinationChainId: '10' }), (s) => s.quote.destinationChainId === 10],
      [
        'chainId (either side)',
        () => ({ chainId: '8453' }),
        (s) => s.quote.originChainId === 8453 || s.quote.destinationChainId === 8453,
      ],
      [
        'user (any case)',
        () => ({ user: a().quote.user.toUpperCase().replace('0X', '0x') }),
        (s) => s.n === 12,
      ],
      ['depositAddress', () => ({ depositAddress: a().quote.depositAddress!.address }), (s) => s.n === 12],
      ['recipient', () => ({ recipient: sample(10).quote.recipient }), (s) => s.n === 10],
      ['recipient (SVM, exact case)', () => ({ recipient: SVM_RECIPIENT }), (s) => s.n === 33],
      ['recipient (SVM, wrong case)', () => ({ recipient: SVM_RECIPIENT.toLowerCase() }), () => false],
      ...(['success', 'failure', 'refund', 'pending', 'depositing'] as const).map(
        (status): [string, () => Record<string, string>, (s: Sample) => boolean] => [
          `status=${status}`,
          () => ({ status }),
          (s) => STATUS[s.outcome] === status,
        ],
      ),
      [
        'failReason',
        () => ({ failReason: 'SOLVER_CAPACITY_EXCEEDED' }),
        (s) => s.expected.v3.data.failReason === 'SOLVER_CAPACITY_EXCEEDED',
      ],
      ['refundFailReason', () => ({ refundFailReason: 'REFUND_REVERTED' }), (s) => s.n === 30],
      ['apiKey (the caller’s own)', () => ({ apiKey: keyA.id }), (s) => s.quote.apiKeyId === keyA.id],
      [
        'requestType',
        () => ({ requestType: 'Crosschain Swap' }),
        (s) => s.quote.requestType === 'Crosschain Swap',
      ],
      [
        'currencyInChainId',
        () => ({ currencyInChainId: '31338' }),
        (s) => s.quote.currencyIn.currency.chainId === 31338,
      ],
      [
        'currencyOutChainId',
        () => ({ currencyOutChainId: '10' }),
        (s) => s.quote.currencyOut.currency.chainId === 10,
      ],
      [
        'currencyInAddress',
        () => ({
          currencyInAddress: sample(2).quote.currencyIn.currency.address.toUpperCase().replace('0X', '0x'),
        }),
        (s) => s.quote.currencyIn.currency.address === sample(2).quote.currencyIn.currency.address,
      ],
      [
        'currencyOutAddress',
        () => ({ currencyOutAddress: '0x0000000000000000000000000000000000000000' }),
        (s) => s.quote.currencyOut.currency.symbol === 'ETH',
      ],
      ['currencyInSymbol', () => ({ currencyInSymbol: 'usdc' }), () => true],
      [
        'currencyOutSymbol (any case)',
        () => ({ currencyOutSymbol: 'eth' }),
        (s) => s.quote.currencyOut.currency.symbol === 'ETH',
      ],
      [
        'startTimestamp / endTimestamp (inclusive seconds)',
        () => ({
          startTimestamp: String(Date.parse(sample(5).quote.quotedAt) / 1000),
          endTimestamp: String(Date.parse(sample(9).quote.quotedAt) / 1000),
        }),
        (s) => s.quote.quotedAt >= sample(5).quote.quotedAt && s.quote.quotedAt <= sample(9).quote.quotedAt,
      ],
      [
        'startBlock / endBlock (deposit block)',
        () => ({ startBlock: '1010', endBlock: '1020' }),
        (s) =>
          s.expected.depositBlock !== null &&
          s.expected.depositBlock >= 1010 &&
          s.expected.depositBlock <= 1020,
      ],
      [
        'amountUsdMin / amountUsdMax',
        () => ({ amountUsdMin: '5', amountUsdMax: '10.5' }),
        (s) => Number(s.quote.currencyIn.amountUsd) >= 5 && Number(s.quote.currencyIn.amountUsd) <= 10.5,
      ],
      [
        'appFeesAmountUsdMin',
        () => ({ appFeesAmountUsdMin: '0.01' }),
        (s) => Number(s.quote.fees.app.usd) >= 0.01,
      ],
      [
        'appFeesAmountUsdMax',
        () => ({ appFeesAmountUsdMax: '0' }),
        (s) => Number(s.quote.fees.app.usd) === 0,
      ],
      [
        'fillTimeMin / fillTimeMax (seconds)',
        () => ({ fillTimeMin: '20', fillTimeMax: '30' }),
        (s) => s.outcome === 'success' && 10 + s.n >= 20 && 10 + s.n <= 30,
      ],
      ['features (one)', () => ({ features: 'app_fees' }), (s) => s.quote.features.includes('app_fees')],
      [
        'features (all of a list, comma and repeated)',
        () => ({ features: ['app_fees,deposit_address', 'app_fees'] }),
        (s) => s.quote.features.includes('app_fees') && s.quote.features.includes('deposit_address'),
      ],
      [
        'privateChainsToInclude (no effect: no chain is private)',
        () => ({ privateChainsToInclude: '1,10' }),
        () => true,
      ],
      [
        'includeChildRequests (no effect: no child requests)',
        () => ({ includeChildRequests: 'true' }),
        () => true,
      ],
      [
        'hash and referrer (not v3 parameters: ignored)',
        () => ({ hash: hash(12, 1), referrer: REFERRER.a }),
        () => true,
      ],
    ])('%s', async (_name, query, predicate) => {
      const expected = where(predicate);
      expect(await ids(query())).toEqual(expected);
    });

    it('combines parameters with AND', async () => {
      expect(await ids({ originChainId: '31338', status: 'success', features: 'app_fees' })).toEqual(
        where(
          (s) =>
            s.quote.originChainId === 31338 &&
            STATUS[s.outcome] === 'success' &&
            s.quote.features.includes('app_fees'),
        ),
      );
    });

    it('matches term against the id, wallets, deposit address and every transaction hash', async () => {
      const failure = listed.find((s) => s.outcome === 'failure')!;
      const refund = listed.find((s) => s.outcome === 'refund')!;
      const depositing = listed.find((s) => s.outcome === 'depositing')!;
      const cases: [string, number[]][] = [
        [sample(12).id.toUpperCase().replace('0X', '0x'), [12]],
        [sample(12).quote.user.toUpperCase().replace('0X', '0x'), [12]],
        [sample(10).quote.recipient, [10]],
        [sample(12).quote.depositAddress!.address, [12]],
        [hash(12, 1), [12]],
        [hash(1, 2), [1]],
        [hash(failure.n, 2), [failure.n]],
        [hash(refund.n, 3), [refund.n]],
        [hash(depositing.n, 5), [depositing.n]],
        [SVM_RECIPIENT, [33]],
        [SVM_RECIPIENT.toUpperCase(), []],
        ['0xdeadbeef', []],
      ];
      for (const [term, expected] of cases) {
        expect({ term, ids: await ids({ term }) }).toEqual({
          term,
          ids: where((s) => expected.includes(s.n)),
        });
      }
    });

    it('OR-s filters groups, AND-s fields within one, and still applies the top-level parameters', async () => {
      const filters = JSON.stringify([
        { status: 'success', originChainId: 8453 },
        { status: ['refund', 'failure'], 'not:originChainId': 8453 },
      ]);
      expect(await ids({ filters })).toEqual(
        where(
          (s) =>
            (STATUS[s.outcome] === 'success' && s.quote.originChainId === 8453) ||
            (['refund', 'failure'].includes(STATUS[s.outcome]) && s.quote.originChainId !== 8453),
        ),
      );
      expect(await ids({ filters, features: 'app_fees' })).toEqual(
        where(
          (s) =>
            s.quote.features.includes('app_fees') &&
            ((STATUS[s.outcome] === 'success' && s.quote.originChainId === 8453) ||
              (['refund', 'failure'].includes(STATUS[s.outcome]) && s.quote.originChainId !== 8453)),
        ),
      );
    });

    it('tests absence with null, and counts absent fields as "not equal" under not:', async () => {
      expect(await ids({ filters: '[{"depositAddress":null}]' })).toEqual(
        where((s) => !s.quote.depositAddress),
      );
      expect(await ids({ filters: '[{"not:depositAddress":null}]' })).toEqual(
        where((s) => !!s.quote.depositAddress),
      );
      expect(await ids({ filters: '[{"fillTxHash":null}]' })).toEqual(
        where((s) => !['success', 'submitted', 'failure', 'refund', 'refundFailed'].includes(s.outcome)),
      );
      expect(await ids({ filters: '[{"not:failReason":"FILL_REVERTED"}]' })).toEqual(
        where((s) => s.expected.v3.data.failReason !== 'FILL_REVERTED'),
      );
      expect(await ids({ filters: '[{"failReason":["FILL_REVERTED",null],"apiKey":null}]' })).toEqual(
        where(
          (s) => s.expected.v3.data.failReason !== 'SOLVER_CAPACITY_EXCEEDED' && s.quote.apiKeyId === null,
        ),
      );
      expect(
        await ids({ filters: JSON.stringify([{ chainId: [10, '31337'], currencyOutSymbol: ['ETH'] }]) }),
      ).toEqual(
        where(
          (s) =>
            [s.quote.originChainId, s.quote.destinationChainId].some((c) => c === 10 || c === 31337) &&
            s.quote.currencyOut.currency.symbol === 'ETH',
        ),
      );
    });

    it.each([
      ['a range filter in a group', '[{"startTimestamp":1}]', 'filters[0].startTimestamp'],
      [
        'an amount range in a group',
        '[{"status":"success"},{"amountUsdMin":"5"}]',
        'filters[1].amountUsdMin',
      ],
      ['features in a group', '[{"features":"app_fees"}]', 'filters[0].features'],
      ['an unknown key', '[{"colour":"red"}]', 'filters[0].colour'],
      ['malformed JSON', '[{"status":"success"', 'filters'],
      ['a group that is not an object', '[1]', 'filters[0]'],
      ['a status outside the five', '[{"status":"submitted"}]', 'filters[0].status'],
    ])('refuses %s with 400', async (_name, filters, field) => {
      await expectBadRequest({ filters }, field);
    });

    it('lets apiKey name the caller only: another key is 403', async () => {
      const { status, body } = await get({ apiKey: keyB.id });
      expect(status).toBe(403);
      expect(body).toEqual({ message: expect.any(String), errorCode: 'FORBIDDEN', statusCode: 403 });
      expect((await get({ filters: JSON.stringify([{ apiKey: keyB.id }]) })).status).toBe(403);
      expect(await ids({ apiKey: keyB.id }, keyB.key)).toEqual(where((s) => s.quote.apiKeyId === keyB.id));
    });

    it.each([
      [{ status: 'waiting' }, 'status'],
      [{ status: 'submitted' }, 'status'],
      [{ originChainId: 'base' }, 'originChainId'],
      [{ amountUsdMin: '10', amountUsdMax: '5' }, 'amountUsdMax'],
      [{ startTimestamp: 'yesterday' }, 'startTimestamp'],
      [{ user: ['0xa', '0xb'] }, 'user'],
      [{ sortBy: 'id' }, 'sortBy'],
      [{ includeTotal: 'yes' }, 'includeTotal'],
    ])('refuses malformed parameters with 400 INVALID_INPUT: %j', async (query, field) => {
      await expectBadRequest(query, field);
    });
  });

  describe('sorting and paging', () => {
    it.each<[Record<string, string>, string, 'asc' | 'desc' | undefined]>([
      [{}, 'createdAt', undefined],
      [{ sortDirection: 'asc' }, 'createdAt', 'asc'],
      [{ sortBy: 'updatedAt' }, 'updatedAt', undefined],
      [{ sortBy: 'updatedAt', sortDirection: 'asc' }, 'updatedAt', 'asc'],
      [{ sortBy: 'amountUsd' }, 'amountUsd', undefined],
      [{ sortBy: 'amountUsd', sortDirection: 'desc' }, 'amountUsd', 'desc'],
    ])('sorts %j (ties by id)', async (query, sortBy, direction) => {
      expect(await ids(query)).toEqual(sorted(listed, sortBy, direction));
    });

    it('orders by updatedAt differently from createdAt (the refunds landed later)', () => {
      expect(sorted(listed, 'updatedAt')).not.toEqual(sorted(listed));
    });

    it('bounds limit to 1..50', async () => {
      await expectBadRequest({ limit: '0' }, 'limit');
      await expectBadRequest({ limit: '51' }, 'limit');
      await expectBadRequest({ limit: '-1' }, 'limit');
      expect((await get({ limit: '1' })).body.requests).toHaveLength(1);
      expect((await get({ limit: '50' })).body.requests).toHaveLength(listed.length);
      expect((await get({ limit: '50' })).body.continuation).toBeNull();
    });

    it.each<[Record<string, string>, string, (s: Sample) => boolean]>([
      [{}, 'createdAt', () => true],
      [{ sortDirection: 'asc' }, 'createdAt', () => true],
      [{ sortBy: 'updatedAt' }, 'updatedAt', () => true],
      [{ sortBy: 'amountUsd', sortDirection: 'desc' }, 'amountUsd', () => true],
      [
        { sortBy: 'amountUsd', chainId: '31337' },
        'amountUsd',
        (s) => [s.quote.originChainId, s.quote.destinationChainId].includes(31337),
      ],
      [
        { filters: '[{"status":"success"},{"not:status":"success","originChainId":8453}]' },
        'createdAt',
        (s) => STATUS[s.outcome] === 'success' || s.quote.originChainId === 8453,
      ],
    ])(
      'pages through %j with continuation: each request once, in order',
      async (query, sortBy, predicate) => {
        const seen: string[] = [];
        let continuation: string | null = null;
        let pages = 0;
        do {
          const page: { status: number; body: { requests: RequestV3[]; continuation: string | null } } =
            await get({
              ...query,
              limit: '7',
              ...(continuation ? { continuation } : {}),
            });
          expect(page.status).toBe(200);
          expect(page.body.requests.length).toBeLessThanOrEqual(7);
          seen.push(...page.body.requests.map((record) => record.id));
          continuation = page.body.continuation;
          pages += 1;
        } while (continuation && pages < 20);
        const expected = sorted(
          listed.filter(predicate),
          sortBy,
          query.sortDirection as 'asc' | 'desc' | undefined,
        );
        expect(seen).toEqual(expected);
        expect(new Set(seen).size).toBe(seen.length);
        expect(pages).toBe(Math.max(1, Math.ceil(expected.length / 7)));
      },
    );

    it('refuses a continuation reused with other filters or another sort, or tampered with', async () => {
      const first = await get({ status: 'success', limit: '2' });
      const { continuation } = first.body as { continuation: string };
      expect((await get({ status: 'success', limit: '5', continuation })).status).toBe(200);
      await expectBadRequest({ status: 'failure', limit: '2', continuation }, 'continuation');
      await expectBadRequest({ limit: '2', continuation }, 'continuation');
      await expectBadRequest({ status: 'success', sortBy: 'updatedAt', continuation }, 'continuation');
      await expectBadRequest({ status: 'success', sortDirection: 'asc', continuation }, 'continuation');
      const tampered = Buffer.from(
        JSON.stringify({
          ...JSON.parse(Buffer.from(continuation, 'base64url').toString()),
          k: "x' OR 1=1 --",
        }),
      ).toString('base64url');
      await expectBadRequest({ status: 'success', continuation: tampered }, 'continuation');
    });

    it('adds total, all pages counted, when asked', async () => {
      const { body } = await get({ includeTotal: 'true', limit: '3' });
      expect(body.total).toBe(listed.length);
      expect(body.requests).toHaveLength(3);
      expect((await get({ includeTotal: 'true', status: 'refund' })).body.total).toBe(
        where((s) => s.outcome === 'refund').length,
      );
      expect((await get({ includeTotal: 'false' })).body).not.toHaveProperty('total');
    });
  });

  describe('authenticated data', () => {
    it('never shows referrer without includeAuthenticatedData=true', async () => {
      for (const query of [{}, { includeAuthenticatedData: 'false' }] as Record<string, string>[]) {
        const { body } = await get({ limit: '50', ...query });
        for (const record of body.requests as RequestV3[]) expect(record.data).not.toHaveProperty('referrer');
      }
    });

    it("shows data.referrer only on the caller's own requests", async () => {
      for (const [key, own] of [
        [keyA, REFERRER.a],
        [keyB, REFERRER.b],
      ] as const) {
        const { body } = await get({ limit: '50', includeAuthenticatedData: 'true' }, key.key);
        for (const record of body.requests as (RequestV3 & { data: { referrer?: string | null } })[]) {
          const s = listed.find((item) => item.id === record.id)!;
          if (s.quote.apiKeyId === key.id) {
            expect(record.data).toHaveProperty('referrer', s.n === 3 ? null : own);
          } else {
            expect(record.data).not.toHaveProperty('referrer');
          }
        }
        expect(body.requests.some((r: { data: object }) => 'referrer' in r.data)).toBe(true);
      }
    });
  });

  describe('hostile input', () => {
    const attacks = [
      "' OR 1=1 --",
      '"; DROP TABLE requests_v3; --',
      "0x'; DELETE FROM events; --",
      '%27%20OR%201%3D1',
      '\\',
      "Robert'); DROP TABLE api_keys;--",
    ];

    it('answers injection strings with 400 or an empty page, never a 500, and leaves the tables intact', async () => {
      const db = sut.app.get<Database>(DATABASE);
      const count = async () =>
        Number((await db.query<{ n: bigint }>('SELECT count(*) AS n FROM requests_v3')).rows[0].n);
      const before = await count();
      const statuses = new Set<number>();
      for (const attack of attacks) {
        for (const query of [
          { term: attack },
          { user: attack },
          { failReason: attack },
          { currencyInSymbol: attack },
          { id: attack, orderId: attack, depositTxHash: attack },
          { filters: JSON.stringify([{ [attack]: 'x' }]) },
          { filters: JSON.stringify([{ [`not:${attack}`]: 'x' }]) },
          { filters: JSON.stringify([{ user: attack, 'not:term': [attack] }]) },
          { filters: `[{"status": "${attack}"}]` },
          { filters: attack },
          { continuation: attack },
          {
            continuation: Buffer.from(JSON.stringify({ v: 1, q: 'x', k: attack, i: attack })).toString(
              'base64url',
            ),
          },
          { sortBy: attack },
          { limit: attack },
          { chainId: attack },
        ] as Record<string, string>[]) {
          const { status, body } = await get(query);
          statuses.add(status);
          expect({ query, answered: status < 500 }).toEqual({ query, answered: true });
          if (status === 200) expect(body.requests).toEqual([]);
          else expect(body.errorCode).toBe('INVALID_INPUT');
        }
      }
      expect([...statuses].sort()).toEqual([200, 400]);
      expect(await count()).toBe(before);
      expect(await ids({})).toEqual(sorted(listed));
      expect((await get({}, keyB.key)).status).toBe(200);
    });
  });
});

describe('GET /requests/v3 before the requests-v3 projection is first built', () => {
  it('answers 503 SERVICE_UNAVAILABLE (retry later), not a 500', async () => {
    const app = await startTestApp({
      API_KEY_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      PROJECTIONS_RUN: 'false',
    });
    try {
      const { key } = await app.app.get(ApiKeysService).create({ label: 'early' });
      const response = await app.http.inject({
        method: 'GET',
        url: '/requests/v3',
        headers: { 'x-api-key': key },
      });
      expect(response.statusCode).toBe(503);
      expect(JSON.parse(response.body)).toEqual({
        message: 'Request history is being built; retry shortly',
        errorCode: 'SERVICE_UNAVAILABLE',
        statusCode: 503,
        requestId: expect.any(String),
      });
    } finally {
      await app.close();
    }
  });
});
