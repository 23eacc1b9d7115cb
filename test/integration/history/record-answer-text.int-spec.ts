import pg from 'pg';
import {
  compactRecordState,
  CURRENCIES_KEY,
  expandV3Record,
} from '../../../projections/requests/stored-record.js';
import { recordAnswerText } from '../../../src/history/record-text.js';
import type { RequestCommand } from '../../../src/requests/domain/request-decide.js';
import { sampleQuote } from '../../../src/requests/domain/sample-requests.js';
import { recordAfter } from '../../support/request-events.js';
import { TEST_SERVER_URL } from '../../support/postgres.js';
import { scenario } from '../../unit/status/request-scenarios.js';

const N = 11;
const quote = sampleQuote(N, { appFeeBps: 50, referrer: 'wallet.example' });
const paths = scenario(quote, N);
const recordOf = (commands: RequestCommand[]) => recordAfter(commands, `request-${quote.requestId}`);

describe(recordAnswerText.name, () => {
  let client: pg.Client;
  /** What GET /requests/v3 reads: PostgreSQL's text of the jsonb record, and its parsed currencies. */
  const stored = async (value: unknown): Promise<string> => {
    const { rows } = await client.query<{ text: string }>('SELECT $1::jsonb::text AS text', [
      JSON.stringify(value),
    ]);
    return rows[0].text;
  };
  /** The answer as it was made before: parsed, currencies expanded, serialised. */
  const parsedAnswer = (text: string, currencies: unknown[]): string =>
    JSON.stringify(expandV3Record(JSON.parse(text), currencies));
  const texts = (currencies: unknown[]) => currencies.map((currency) => JSON.stringify(currency));

  beforeAll(async () => {
    client = new pg.Client({ connectionString: TEST_SERVER_URL });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  it.each([
    ['quoted', [paths.recordQuote]],
    ['filled', paths.success],
    ['refunded', paths.refunded],
  ])(
    'writes a %s record as JSON.stringify writes it parsed and expanded, byte for byte',
    async (_, commands) => {
      const record = recordOf(commands as RequestCommand[]);
      const compact = compactRecordState(record) as Record<string, unknown>;
      const currencies = JSON.parse(await stored(compact[CURRENCIES_KEY])) as unknown[];
      const text = await stored(compact.v3);
      expect(text).toContain('{"$c": 0}');

      const sut = recordAnswerText(text, texts(currencies));

      // The answer as before (in jsonb's key order, which the parsed object kept), and the same record.
      expect(sut).toBe(parsedAnswer(text, currencies));
      expect(JSON.parse(sut!)).toEqual(record.v3);
    },
  );

  it('keeps strings exactly: spaces, quotes, backslashes, escapes, references and non-ASCII inside them', async () => {
    const currencies = [{ symbol: 'USDC', decimals: 6 }];
    const value = {
      a: 'two  spaces, and: colons',
      b: 'a "quoted" \\ backslash \\" and \\\\',
      c: '{"$c": 0} inside a string',
      d: 'tab\tnew line\ncontrol \u0001 é ü 😀 \u2028',
      e: ['', ' ', '\\', '"'],
      f: { currency: { $c: 0 }, amounts: [{ $c: 0 }, 1, -2.5, 0.000001, 12345678901234567000] },
      g: [[], {}, [{}], null, true, false],
      h: { $c: 0, other: 1 },
    };
    const text = await stored(value);

    expect(recordAnswerText(text, texts(currencies))).toBe(parsedAnswer(text, currencies));
  });

  it('leaves numbers JSON.stringify prints in exponent form, and missing currencies, to the parsing path', async () => {
    for (const value of [
      { big: 1e21 },
      { small: 1e-7 },
      { list: [-1e22] },
      { ref: { $c: 3 } },
      { ref: { $c: 1.5 } },
    ]) {
      expect(recordAnswerText(await stored(value), texts([{ symbol: 'ETH' }]))).toBeNull();
    }
  });
});
