import { parseFilters } from '../../../src/history/requests-v3.filters.js';
import { conditionSql, SqlParams, whereSql } from '../../../src/history/requests-v3.sql.js';

const EVM = '0xAbCdEf0000000000000000000000000000000001';
const SVM = 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy';

const groupsOf = (filters: unknown) => {
  const { groups, problems } = parseFilters(JSON.stringify(filters));
  expect(problems).toEqual([]);
  return groups;
};
const problemsOf = (text: string) => parseFilters(text).problems;
const compile = (filters: unknown) => {
  const params = new SqlParams();
  const text = whereSql({ conditions: [], groups: groupsOf(filters), ranges: [], features: [] }, params);
  return { text, params: params.values };
};

describe(parseFilters.name, () => {
  it('reads groups of fields, with not:, arrays and null', () => {
    expect(
      groupsOf([
        { status: 'success', originChainId: 8453 },
        { 'not:status': ['refund', 'failure'], depositAddress: null, user: [EVM, SVM] },
      ]),
    ).toEqual([
      [
        { key: 'status', negated: false, values: ['success'] },
        { key: 'originChainId', negated: false, values: ['8453'] },
      ],
      [
        { key: 'status', negated: true, values: ['refund', 'failure'] },
        { key: 'depositAddress', negated: false, values: [null] },
        // EVM hex is lower-cased; an SVM address is case-sensitive and kept exactly.
        { key: 'user', negated: false, values: [EVM.toLowerCase(), SVM] },
      ],
    ]);
  });

  it('normalises values like the projection stores them: chain ids as digits, symbols lower-cased', () => {
    expect(groupsOf([{ chainId: '10', currencyInSymbol: 'USDC', 'not:failReason': 'X' }])).toEqual([
      [
        { key: 'chainId', negated: false, values: ['10'] },
        { key: 'currencyInSymbol', negated: false, values: ['usdc'] },
        { key: 'failReason', negated: true, values: ['X'] },
      ],
    ]);
    expect(groupsOf([{ user: [EVM, EVM.toLowerCase()] }])[0][0].values).toEqual([EVM.toLowerCase()]);
  });

  it('accepts an empty array of groups (no OR constraint)', () => {
    expect(groupsOf([])).toEqual([]);
  });

  it.each([
    ['not JSON', '[{"status":', 'filters', 'must be valid JSON'],
    ['an object instead of an array', '{"status":"success"}', 'filters', 'must be a JSON array'],
    ['a group that is not an object', '["success"]', 'filters[0]', 'must be an object'],
    ['a group that is an array', '[["status"]]', 'filters[0]', 'must be an object'],
    ['an empty group', '[{}]', 'filters[0]', 'at least one field'],
    ['an unknown key', '[{"colour":"red"}]', 'filters[0].colour', 'is not a field'],
    ['a negated unknown key', '[{"not:sortBy":"x"}]', 'filters[0].not:sortBy', 'is not a field'],
    ['a range key', '[{"startTimestamp":1}]', 'filters[0].startTimestamp', 'top-level parameter only'],
    ['a negated range key', '[{"not:amountUsdMin":"5"}]', 'filters[0].not:amountUsdMin', 'top-level'],
    ['features', '[{"features":["app_fees"]}]', 'filters[0].features', 'top-level parameter only'],
    ['an empty array value', '[{"status":[]}]', 'filters[0].status', 'array of 1 to'],
    ['a status outside the five', '[{"status":"waiting"}]', 'filters[0].status', 'must be one of'],
    ['a request type outside the list', '[{"requestType":"Teleport"}]', 'filters[0].requestType', 'one of'],
    ['a non-integer chain id', '[{"chainId":1.5}]', 'filters[0].chainId', 'positive integer'],
    ['a negative chain id', '[{"originChainId":"-1"}]', 'filters[0].originChainId', 'positive integer'],
    ['a number for an address', '[{"user":42}]', 'filters[0].user', 'must be a string'],
    ['an object value', '[{"user":{"$ne":1}}]', 'filters[0].user', 'must be a string'],
    ['null for a field that is always set', '[{"user":null}]', 'filters[0].user', 'cannot be null'],
    ['a control character', '[{"term":"a\\u0000b"}]', 'filters[0].term', 'control characters'],
    ['an over-long value', `[{"term":"${'a'.repeat(257)}"}]`, 'filters[0].term', '1 to 256'],
    ['an api key that is not a UUID', '[{"apiKey":"fk_123"}]', 'filters[0].apiKey', 'UUID'],
  ])('refuses %s', (_name, text, field, problem) => {
    const problems = problemsOf(text);
    expect(problems).toEqual([{ field, problems: [expect.stringContaining(problem)] }]);
  });

  it('refuses keys written to attack the SQL, and echoes them back only as data', () => {
    for (const key of [`status' OR 1=1 --`, 'status"; DROP TABLE requests_v3; --', 'not:"id"']) {
      const problems = problemsOf(JSON.stringify([{ [key]: 'success' }]));
      expect(problems).toEqual([
        { field: `filters[0].${key}`, problems: [expect.stringContaining('is not a field')] },
      ]);
    }
    expect(problemsOf('[{"__proto__":{"status":"x"}}]')[0].field).toBe('filters[0].__proto__');
  });

  it('reports every problem of every group at once', () => {
    const problems = problemsOf('[{"status":"nope","colour":1},{"startBlock":1}]');
    expect(problems.map((p) => p.field)).toEqual([
      'filters[0].status',
      'filters[0].colour',
      'filters[1].startBlock',
    ]);
  });

  it('bounds the number of groups, fields and values', () => {
    expect(
      problemsOf(JSON.stringify(Array.from({ length: 21 }, () => ({ status: 'success' }))))[0].problems[0],
    ).toMatch(/at most 20 groups/);
    expect(
      problemsOf(JSON.stringify([{ chainId: Array.from({ length: 51 }, (_, i) => i + 1) }])),
    ).toHaveLength(1);
  });
});

describe(whereSql.name, () => {
  it('AND-s the fields of a group, OR-s the groups, and keeps every value in a parameter', () => {
    const { text, params } = compile([
      { status: 'success', originChainId: 8453 },
      { 'not:status': ['refund', 'failure'], depositAddress: null },
    ]);
    expect(text).toBe(
      'listed AND ((status = $1::text AND origin_chain_id = $2::bigint) OR ' +
        '((status = ANY($3::text[])) IS NOT TRUE AND deposit_address IS NULL))',
    );
    expect(params).toEqual(['success', '8453', ['refund', 'failure']]);
  });

  it('treats null inside an array as "or absent", and null on a hash list as "has none of that kind"', () => {
    expect(compile([{ failReason: ['A', null] }]).text).toBe(
      'listed AND ((fail_reason = $1::text OR fail_reason IS NULL))',
    );
    expect(compile([{ 'not:fillTxHash': null }]).text).toBe(
      'listed AND ((cardinality(fill_tx_hashes) = 0) IS NOT TRUE)',
    );
  });

  it('looks term and hash kinds up first through the indexed search_terms, and matches chainId on either side', () => {
    const params = new SqlParams();
    expect(conditionSql({ key: 'term', negated: false, values: ['0xab'] }, params)).toBe(
      'id = ANY(ARRAY(SELECT id FROM requests_v3 WHERE listed AND search_terms && $1::text[]))',
    );
    expect(conditionSql({ key: 'refundTxHash', negated: true, values: ['0xab'] }, params)).toBe(
      '(id = ANY(ARRAY(SELECT id FROM requests_v3 WHERE listed AND search_terms && $2::text[] AND ' +
        'refund_tx_hashes && $2::text[]))) IS NOT TRUE',
    );
    expect(conditionSql({ key: 'chainId', negated: false, values: ['1', '10'] }, params)).toBe(
      '(origin_chain_id = ANY($3::bigint[]) OR destination_chain_id = ANY($3::bigint[]))',
    );
    expect(params.values).toEqual([['0xab'], ['0xab'], ['1', '10']]);
  });

  it('never puts a value into the SQL text', () => {
    const attack = `' OR 1=1 --"; DROP TABLE requests_v3; --`;
    const { text, params } = compile([{ term: attack, user: [attack], failReason: attack }]);
    expect(text).not.toContain('DROP');
    expect(text).not.toContain("'");
    expect(params).toEqual([[attack], attack, attack]);
  });
});
