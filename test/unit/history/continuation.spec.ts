import { ApiError } from '../../../src/common/http/api-error.js';
import { decodeContinuation, encodeContinuation, queryDigest } from '../../../src/history/continuation.js';

const digest = queryDigest({ filter: { status: 'success' }, sortBy: 'createdAt', sortDirection: 'desc' });
const position = { value: '2026-11-01T00:05:00.123456Z', id: `0x${'ab'.repeat(32)}` };

const errorOf = (fn: () => unknown): { status: number; body: unknown } => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { status: (error as ApiError).getStatus(), body: (error as ApiError).getResponse() };
  }
  throw new Error('expected an ApiError');
};

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('continuation', () => {
  it('round-trips the last position of a page', () => {
    const sut = encodeContinuation(position, digest);
    expect(sut).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeContinuation(sut, digest, 'createdAt')).toEqual(position);
    expect(
      decodeContinuation(encodeContinuation({ value: '12.5', id: 'x' }, digest), digest, 'amountUsd'),
    ).toEqual({
      value: '12.5',
      id: 'x',
    });
  });

  it('refuses a continuation issued for other filters or another sort', () => {
    const other = queryDigest({ filter: { status: 'failure' }, sortBy: 'createdAt', sortDirection: 'desc' });
    const { status, body } = errorOf(() =>
      decodeContinuation(encodeContinuation(position, digest), other, 'createdAt'),
    );
    expect(status).toBe(400);
    expect(body).toEqual({
      message: expect.stringContaining('different filters'),
      errorCode: 'INVALID_INPUT',
      errorData: [{ field: 'continuation', problems: [expect.stringContaining('different filters')] }],
    });
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['base64 of a non-object', base64url(42)],
    ['base64 of null', base64url(null)],
    ['another version', base64url({ v: 2, q: digest, k: position.value, i: position.id })],
    ['a missing id', base64url({ v: 1, q: digest, k: position.value })],
    ['a number for the sort value', base64url({ v: 1, q: digest, k: 5, i: 'x' })],
    ['SQL in the sort value', base64url({ v: 1, q: digest, k: "2026-11-01' OR 1=1 --", i: 'x' })],
    ['a timestamp without microseconds', base64url({ v: 1, q: digest, k: '2026-11-01T00:05:00Z', i: 'x' })],
    ['a control character in the id', base64url({ v: 1, q: digest, k: position.value, i: 'a\u0000' })],
    ['an over-long id', base64url({ v: 1, q: digest, k: position.value, i: 'a'.repeat(300) })],
  ])('refuses a tampered continuation: %s', (_name, token) => {
    const { status, body } = errorOf(() => decodeContinuation(token, digest, 'createdAt'));
    expect(status).toBe(400);
    expect(body).toMatchObject({ errorCode: 'INVALID_INPUT', errorData: [{ field: 'continuation' }] });
  });

  it('refuses a time-sort continuation on the amount sort and the other way round', () => {
    expect(() => decodeContinuation(encodeContinuation(position, digest), digest, 'amountUsd')).toThrow(
      ApiError,
    );
    const amount = encodeContinuation({ value: '12.5', id: 'x' }, digest);
    expect(() => decodeContinuation(amount, digest, 'updatedAt')).toThrow(ApiError);
  });

  it('digests equal queries equally and different ones differently', () => {
    expect(queryDigest({ a: 1 })).toBe(queryDigest({ a: 1 }));
    expect(queryDigest({ a: 1 })).not.toBe(queryDigest({ a: 2 }));
  });
});
