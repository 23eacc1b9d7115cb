import { isDatabaseUnavailable } from '../../../src/database/database-unavailable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe(isDatabaseUnavailable.name, () => {
  it.each([
    ['too many connections', withCode('53300', 'sorry, too many clients already')],
    ['out of memory', withCode('53200')],
    ['disk full', withCode('53100')],
    ['admin shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown', withCode('57P02')],
    ['starting up', withCode('57P03', 'the database system is starting up')],
    ['connection failure', withCode('08006')],
    ['connection refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['connection reset', withCode('ECONNRESET')],
    ['connection lost', new Error('Connection terminated unexpectedly')],
    ['pool timeout', new Error('timeout exceeded when trying to connect')],
  ])('takes %s for the database being unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value violates unique constraint')],
    ['an undefined table', withCode('42P01')],
    ['a syntax error', withCode('42601')],
    ['a query cancelled by a statement timeout', withCode('57014')],
    ['a bug', new TypeError('cannot read properties of undefined')],
    ['nothing', undefined],
    ['a string', 'Connection'],
  ])('does not take %s for it', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
